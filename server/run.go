package server

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/airlockrt/airlock/chain"
)

// maxEvents bounds the tool and approval events a chain keeps for its event
// stream; beyond it the oldest are dropped.
const maxEvents = 1024

// statusRunning is a chain's status until it ends.
const statusRunning = "running"

// run is one chain submitted through the API.
type run struct {
	id, tenant, lang string
	created          time.Time
	cancel           func(cause error)
	done             chan struct{} // closed once the result is set and the run filed

	mu       sync.Mutex
	result   *chain.RunResult
	finished time.Time
	events   []event // tool and approval events, seq ascending
	nextSeq  int
	changed  chan struct{} // closed and replaced on every append and at the end
}

// event is one Server-Sent Event.
type event struct {
	seq  int
	name string
	data []byte
}

func newRun(id, tenant, lang string, cancel func(error)) *run {
	return &run{
		id: id, tenant: tenant, lang: lang, created: time.Now().UTC(), cancel: cancel,
		done: make(chan struct{}), nextSeq: 1, changed: make(chan struct{}),
	}
}

// publish appends an event for the stream. Events after the chain ended
// are dropped.
func (r *run) publish(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.result != nil {
		return
	}
	r.events = append(r.events, event{seq: r.nextSeq, name: name, data: data})
	r.nextSeq++
	if len(r.events) > maxEvents {
		r.events = append(r.events[:0:0], r.events[len(r.events)-maxEvents:]...)
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// finish records the result and wakes every stream. The caller closes
// done once the run is filed among the finished ones.
func (r *run) finish(res *chain.RunResult) {
	r.mu.Lock()
	r.result, r.finished = res, time.Now().UTC()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// ChainView is a chain as the API shows it.
type ChainView struct {
	// ID is the chain's id (also its session id).
	ID string `json:"id"`
	// Tenant is the tenant it runs for.
	Tenant string `json:"tenant"`
	// Status is running, then the chain's final status: ok, error, timeout,
	// cancelled or limit_exceeded.
	Status string `json:"status"`
	// Language is javascript, typescript or wasm.
	Language string `json:"language"`
	// Created and Finished bracket the chain; Finished is absent while it
	// runs.
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"`
	// Result is the whole RunResult once the chain ended.
	Result *chain.RunResult `json:"result,omitempty"`
}

func (r *run) view() ChainView {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := ChainView{ID: r.id, Tenant: r.tenant, Status: statusRunning, Language: r.lang, Created: r.created}
	if r.result != nil {
		v.Status, v.Finished, v.Result = string(r.result.Status), r.finished, r.result
	}
	return v
}

// since returns the events after seq, the result if the chain ended, and a
// channel closed at the next change.
func (r *run) since(seq int) ([]event, *chain.RunResult, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event
	for _, e := range r.events {
		if e.seq > seq {
			out = append(out, e)
		}
	}
	return out, r.result, r.changed
}
