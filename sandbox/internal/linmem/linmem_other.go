//go:build !linux

package linmem

import "errors"

var errNoMappings = errors.New("linmem: no mappings on this platform")

func mapAnon(uint64) ([]byte, error) { return nil, errNoMappings }

func unmap([]byte) error { return nil }

func release([]byte) error { return errNoMappings }

func newImageFD([]byte) (int, uint64, error) { return -1, 0, errNoMappings }

func closeFD(int) {}

func mapImage([]byte, int, uint64) error { return errNoMappings }

func viewImage(int, uint64) ([]byte, error) { return nil, errNoMappings }

func privatePages([]byte, func(int)) bool { return false }
