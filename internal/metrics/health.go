package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// healthStatuses are the values of the status label of tool_health.
var healthStatuses = []govern.HealthStatus{govern.Healthy, govern.Degraded, govern.Unavailable}

// healthCollector reports each registered tool's health at scrape time.
type healthCollector struct {
	box  *toolbox.Toolbox
	h    *govern.Health
	desc *prometheus.Desc
}

// NewHealth registers airlock_tool_health on reg: for every tool of box,
// one series per status (healthy, degraded, unavailable), 1 for the tool's
// worst current status over every tenant (no tenant is a label) and 0 for
// the others, read from h at scrape time.
func NewHealth(reg prometheus.Registerer, box *toolbox.Toolbox, h *govern.Health) error {
	if reg == nil {
		return errNilRegisterer
	}
	return reg.Register(&healthCollector{box: box, h: h, desc: prometheus.NewDesc(
		prometheus.BuildFQName(namespace, "", "tool_health"),
		"Tool health by tool and status (healthy, degraded, unavailable): 1 for the current status, 0 for the others.",
		[]string{"tool", "status"}, nil)})
}

func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	if c.box == nil || c.h == nil {
		return
	}
	for _, name := range c.box.Names() {
		now := c.h.Worst(name).Status
		for _, s := range healthStatuses {
			v := 0.0
			if s == now {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, name, string(s))
		}
	}
}
