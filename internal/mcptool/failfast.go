package mcptool

import "fmt"

// startError returns why the server's first start failed, or nil when it
// started (or has not ended its first start yet).
func (s *server) startError() error {
	c := s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil && c.down != nil {
		return fmt.Errorf("mcp server %q did not start: %w", s.spec.Name, c.down)
	}
	return nil
}
