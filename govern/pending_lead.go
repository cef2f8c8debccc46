package govern

// Temporary stand-ins until the helpers' branches merge; deleted then.

func (l *Limiter) Refund(tenant, tool string) {}
