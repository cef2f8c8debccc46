package metrics

import "github.com/prometheus/client_golang/prometheus"

// FleetRefusals counts the objects of a fleet's bucket a process refused as
// not authentic (forged, edited, replayed or moved by someone who can write
// the bucket without the fleet key), by kind.
type FleetRefusals struct {
	refused *prometheus.CounterVec
	known   map[string]bool
}

// NewFleetRefusals registers airlock_fleet_refused_total{kind} with reg,
// every kind of kinds present from the start; another kind is counted as
// Other.
func NewFleetRefusals(reg prometheus.Registerer, kinds []string) (*FleetRefusals, error) {
	m := &FleetRefusals{refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "fleet_refused_total",
		Help: "Objects of the fleet's bucket refused as not authenticated by the fleet key (forged, edited, replayed or moved), by kind; none of them was acted on.",
	}, []string{"kind"})}
	known := map[string]bool{}
	for _, k := range kinds {
		known[k] = true
		m.refused.WithLabelValues(k)
	}
	m.refused.WithLabelValues(Other)
	if err := reg.Register(m.refused); err != nil {
		return nil, err
	}
	m.known = known
	return m, nil
}

// Refused counts one refused object of kind.
func (m *FleetRefusals) Refused(kind string) {
	if !m.known[kind] {
		kind = Other
	}
	m.refused.WithLabelValues(kind).Inc()
}

// NewIdempotencyRefusals registers airlock_idempotency_refused_total with
// reg and returns the function that counts one refused record.
func NewIdempotencyRefusals(reg prometheus.Registerer) (func(), error) {
	c := prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "idempotency_refused_total",
		Help: "Idempotency records of the shared store refused as not authenticated by the fleet key (forged, edited or moved); none answered a call.",
	})
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	return c.Inc, nil
}
