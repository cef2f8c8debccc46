//go:build !linux

package linmem

import "errors"

var errNoMappings = errors.New("linmem: no mappings on this platform")

func mapAnon(uint64) ([]byte, error) { return nil, errNoMappings }

func unmap([]byte) error { return nil }

func release([]byte) error { return errNoMappings }
