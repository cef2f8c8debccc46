package durable

import "github.com/airlockrt/airlock/blobstore"

// SignForTest returns body as a record of kind bound to tenant, object and
// gen under s's current key: what a process holding that key writes, for
// tests to plant records of a wrong kind, tenant, object or generation, or
// under another key.
func SignForTest(s *Store, kind, tenant, object string, gen int, body []byte) []byte {
	return s.sign(binding{kind: kind, tenant: tenant, object: object, gen: gen}, body)
}

// Blobs returns the blob store s works on, for tests.
func (s *Store) Blobs() *blobstore.Store { return s.bs }
