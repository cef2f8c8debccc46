package govern

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Temporary stand-ins until the helpers' branches merge; deleted then.

func ValidKey(k string) bool { return k != "" && len(k) <= 128 }
func DeriveKey(chainID string, seq int, canonicalArgs []byte) string {
	return fmt.Sprint(chainID, seq, string(canonicalArgs))
}

type memOut struct {
	mu sync.Mutex
	m  map[string]*Outcome
}

func NewMemOutcomes(now Clock) Outcomes { return &memOut{m: map[string]*Outcome{}} }

func (m *memOut) Begin(ctx context.Context, tenant, tool, key string, window time.Duration) (*Outcome, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := tenant + "/" + tool + "/" + key
	if o, ok := m.m[k]; ok {
		c := *o
		return &c, nil
	}
	m.m[k] = &Outcome{State: OutcomePending}
	return nil, nil
}

func (m *memOut) Finish(ctx context.Context, tenant, tool, key string, o Outcome) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[tenant+"/"+tool+"/"+key] = &o
	return nil
}
