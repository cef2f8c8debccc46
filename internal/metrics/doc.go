// Package metrics holds airlock's Prometheus collectors and the adapters that
// feed them: invoker hooks and progress for tool calls, an approval-handler
// wrapper for approval waits, a store wrapper for offloaded artifacts and
// pins, and methods the chain runner and the server call for chains and
// bridge errors.
//
//	reg := prometheus.NewRegistry()
//	m, err := metrics.New(reg, box)
//	inv, err := invoker.New(box, invoker.Options{
//		Hooks: m.Hooks(), Progress: m.Progress(),
//		Approver: m.Approver(queue), Store: m.Store(store),
//	})
//	end := m.StartChain()
//	res, err := runner.Run(ctx, script, opts)
//	end(string(res.Status), res.Stats.MemoryBytes)
//
// # Metrics
//
// Every name starts with airlock_. Labels are only tool, status and reason,
// with bounded values: a tool name that is not registered in the toolbox
// reads "unknown", a status or reason outside airlock's fixed sets reads
// "other". No chain, session or tenant id is ever a label.
//
//	airlock_tool_calls_total{tool,status,reason}        counter
//	airlock_tool_call_duration_seconds{tool,status}     histogram (whole call, approval wait included)
//	airlock_tool_calls_in_flight{tool}                  gauge (calls waiting for their tool; not abandoned ones)
//	airlock_approvals_total{tool,status}                counter; status approved|denied|timeout|error
//	airlock_tool_health{tool,status}                    gauge; 1 for the current status (healthy|degraded|unavailable), NewHealth
//	airlock_approval_wait_seconds{tool,status}          histogram
//	airlock_chains_total{status}                        counter
//	airlock_chains_in_flight                            gauge
//	airlock_chain_duration_seconds{status}              histogram
//	airlock_guest_memory_bytes                          histogram (peak guest memory per chain)
//	airlock_artifacts_offloaded_total                   counter (results and media stored)
//	airlock_artifacts_offloaded_bytes_total             counter
//	airlock_pins_outstanding                            gauge (pins taken and not yet released)
//	airlock_bridge_errors_total{reason}                 counter
//
// # Concurrency
//
// A Metrics and every adapter it returns are safe for concurrent use.
//
// # Errors
//
// New fails when a collector cannot be registered (for instance when reg
// already holds airlock collectors).
package metrics
