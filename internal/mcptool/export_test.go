package mcptool

// Test hooks.

// PID returns the process id of the last stdio process started for the
// session of tenant ("" for the catalog session) of server name, or 0.
func (m *Manager) PID(name, tenant string) int {
	s := m.servers[name]
	if s == nil {
		return 0
	}
	c := s.catalog
	if tenant != "" {
		s.mu.Lock()
		c = s.tenants[tenant]
		s.mu.Unlock()
		if c == nil {
			return 0
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pid
}

// TenantSessions returns how many tenant sessions server name holds.
func (m *Manager) TenantSessions(name string) int {
	s := m.servers[name]
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tenants)
}

// Users returns how many calls hold the session of tenant of server name.
func (m *Manager) Users(name, tenant string) int {
	s := m.servers[name]
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.tenants[tenant]; c != nil {
		return c.users
	}
	return 0
}

// SetMaxTenantSessions lowers the bound of tenant sessions until the
// returned func restores it.
func SetMaxTenantSessions(n int) (restore func()) {
	old := maxTenantSessions
	maxTenantSessions = n
	return func() { maxTenantSessions = old }
}

// SetMaxResultBytes lowers the bound of one result's files for a test.
func SetMaxResultBytes(t interface{ Cleanup(func()) }, n int) {
	old := maxResultBytes
	maxResultBytes = n
	t.Cleanup(func() { maxResultBytes = old })
}
