package invoker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// decide asks the Governor and applies Policy.MaxRiskUnapproved: a call
// the default matrix would have confirmed runs without approval when its
// risk is at most that level (the operator lifted it for every chain). A
// confirm the profile's own matrix row set is never lifted.
func (inv *Invoker) decide(ch *govern.Chain, c govern.Call) govern.Decision {
	d := inv.gov.Decide(ch, c)
	p := ch.Profile()
	_, ownRow := p.Matrix[p.Autonomy]
	if !ownRow && d.Gate == govern.Confirm && d.Reason == "" && d.Risk <= inv.policy.MaxRiskUnapproved {
		d.Gate, d.Rule = govern.Allow, "policy.max_risk_unapproved"
	}
	return d
}

// denial is the Result of a decision that refuses the call.
func (inv *Invoker) denial(d govern.Decision) Result {
	if d.Reason != "" {
		return fail(session.StatusDenied, d.Reason, d.Message)
	}
	return fail(session.StatusDenied, ReasonGateDenied, d.Message)
}

// refuse fires policy.deny for a governance refusal and returns r.
func (inv *Invoker) refuse(ctx context.Context, sess *session.Session, st *callState, r Result) Result {
	ev := inv.event(PolicyDeny, sess, st)
	ev.Status, ev.Reason = r.Status, r.Reason
	inv.notify(ctx, st, ev)
	return r
}

// recheck decides the call again just before it executes, with the tool
// as registered now and the chain's profile as it is now. A refusal, or a
// gate stricter than the one the call passed, ends the call.
func (inv *Invoker) recheck(ctx context.Context, sess *session.Session, st *callState, latest *toolbox.Entry, c govern.Call) (Result, bool) {
	if latest == nil {
		return inv.refuse(ctx, sess, st, fail(session.StatusDenied, ReasonApprovalModeUpgraded,
			fmt.Sprintf("tool %q was removed while the call waited; it did not run", st.tool))), true
	}
	c.Info = latest.Info()
	c.Action = govern.ActionOf(c.Info, c.Args)
	d := inv.decide(sess.Governance(), c)
	if d.Denied() {
		st.dec, st.risk = d, d.Risk
		return inv.refuse(ctx, sess, st, inv.denial(d)), true
	}
	if d.Gate > st.dec.Gate || latest.Info().Kind != toolbox.KindLocal {
		inv.log.Warn("invoker: security: a call met a stricter gate at execute time than it passed; refused",
			"tool", st.tool, "passed", st.dec.Gate.String(), "now", d.Gate.String(), "rule", d.Rule, "decision_id", d.ID)
		was := st.dec.Gate
		st.dec, st.risk = d, d.Risk
		return inv.refuse(ctx, sess, st, fail(session.StatusDenied, ReasonApprovalModeUpgraded,
			fmt.Sprintf("tool %q passed the %s gate but now needs %s (%s); it did not run", st.tool, was, d.Gate, d.Rule))), true
	}
	return Result{}, false
}

// preview runs the tool's Preview instead of the tool, under the call
// timeout, and returns it with reason preview_required. A tool without
// Preview gets a generic preview.
func (inv *Invoker) preview(ctx context.Context, sess *session.Session, st *callState, entry *toolbox.Entry, args json.RawMessage, hasRefs bool) Result {
	msg := fmt.Sprintf("tool %q needs a preview at this autonomy level (%s); it did not run: show the preview to a human or call it outside the chain", st.tool, st.dec.Rule)
	pv, ok := entry.Tool().(toolbox.Previewer)
	if !ok {
		r := fail(session.StatusDenied, ReasonPreviewRequired, msg)
		m := map[string]any{"tool": st.tool, "risk": st.risk.String(), "executed": false}
		if st.action != "" {
			m["action"] = st.action
		}
		r.Preview, _ = json.Marshal(m)
		return r
	}
	if hasRefs {
		resolved, r, failed := inv.resolve(ctx, sess, st, args, true)
		if failed {
			return r
		}
		args = resolved
	}
	out, r, failed, _ := inv.execute(ctx, inv.caller(sess, st, ""), previewTool{pv, entry.Tool()}, args, inv.policy.CallTimeout)
	if failed {
		return r
	}
	r = fail(session.StatusDenied, ReasonPreviewRequired, msg)
	switch {
	case len(out.JSON) == 0:
		r.Preview = nullJSON
	case !json.Valid(out.JSON):
		return fail(session.StatusError, ReasonInvalidResult, fmt.Sprintf("tool %q returned a preview that is not valid JSON", st.tool))
	case len(out.JSON) > inv.policy.MaxInlineResultBytes:
		r.Preview, _ = json.Marshal(preview(out.JSON, inv.policy.PreviewChars))
	default:
		r.Preview = out.JSON
	}
	return r
}

// previewTool runs a Previewer's Preview as if it were the tool's Call.
type previewTool struct {
	pv toolbox.Previewer
	toolbox.Tool
}

func (p previewTool) Call(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
	b, err := p.pv.Preview(ctx, args)
	return toolbox.Output{JSON: b}, err
}

var idemArgKey = []byte(`"$idempotency_key"`)

// takeIdempotencyKey removes a top-level "$idempotency_key" member from
// args. A key given both ways must agree.
func takeIdempotencyKey(args json.RawMessage, key string) (json.RawMessage, string, Result, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, "", fail(session.StatusError, ReasonInvalidArguments, fmt.Sprintf("arguments must be a JSON object: %v", err)), true
	}
	raw, ok := m["$idempotency_key"]
	if !ok {
		return args, key, Result{}, false
	}
	var k string
	if json.Unmarshal(raw, &k) != nil || !govern.ValidKey(k) {
		return nil, "", fail(session.StatusError, ReasonInvalidArguments,
			`"$idempotency_key" must be a string of 1 to 128 letters, digits, '_', '.', ':' or '-'`), true
	}
	if key != "" && key != k {
		return nil, "", fail(session.StatusError, ReasonInvalidArguments, "two different idempotency keys were given for one call"), true
	}
	delete(m, "$idempotency_key")
	out, err := json.Marshal(m)
	if err != nil {
		return nil, "", fail(session.StatusError, ReasonInvalidArguments, err.Error()), true
	}
	return out, k, Result{}, false
}

// beginOutcome claims the call's idempotency key. stop reports that the
// call must not run: its recorded result (deduped), or a refusal. retry
// says the call runs again for a fresh credential (Resumption.Retry): its
// own refusal for want of one, recorded under the key when it parked,
// sent nothing, so the key is claimed anew rather than answered by it.
func (inv *Invoker) beginOutcome(ctx context.Context, sess *session.Session, st *callState, c govern.Call, key string, sent json.RawMessage, retry bool) (Result, bool) {
	// The arguments as the chain sent them (artifact refs, not their
	// content, which may be large): the same call derives the same key and
	// hash.
	canon, err := canonical(sent)
	if err != nil {
		return fail(session.StatusError, ReasonInvalidArguments, fmt.Sprintf("tool %q: %v", st.tool, err)), true
	}
	sum := sha256.Sum256(canon)
	argsHash := hex.EncodeToString(sum[:])
	if key == "" {
		key = govern.DeriveKey(c.ChainID, c.Seq, canon)
	} else if !govern.ValidKey(key) {
		return fail(session.StatusError, ReasonInvalidArguments,
			"the idempotency key must be 1 to 128 letters, digits, '_', '.', ':' or '-', not starting with \"d:\""), true
	}
	st.idemKey, st.argsHash = key, argsHash
	prior, err := inv.gov.Outcomes().Begin(ctx, c.Tenant, c.Tool, key, argsHash, inv.gov.DedupWindow())
	if err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx), true
		}
		inv.log.Warn("invoker: writing an idempotency record failed", "tool", st.tool, "err", err)
		return fail(session.StatusError, ReasonStoreError,
			fmt.Sprintf("tool %q: its idempotency record could not be written; the call did not run", st.tool)), true
	}
	if prior == nil {
		return Result{}, false
	}
	if prior.ArgsHash != argsHash {
		return inv.refuse(ctx, sess, st, fail(session.StatusError, ReasonIdempotencyKeyReused,
			fmt.Sprintf("tool %q: idempotency key %q was used for a call with other arguments; use a new key", st.tool, key))), true
	}
	switch prior.State {
	case govern.OutcomeOK, govern.OutcomeFailed:
		var r Result
		if err := json.Unmarshal(prior.Result, &r); err != nil || (r.Status != session.StatusOK && r.Reason == "") {
			return fail(session.StatusError, ReasonOutcomeUnknown,
				fmt.Sprintf("tool %q: the recorded outcome of key %q cannot be read; the call is not run again", st.tool, key)), true
		}
		// Only the refusal this very call recorded is claimed anew: two
		// chains parked on one explicit key (the second after the first's
		// record left the window), run again at once, would otherwise both
		// claim the one they read and both send.
		if retry && prior.State == govern.OutcomeFailed && prior.Call == outcomeCall(c) &&
			(r.Reason == ReasonCredentialExpired || r.Reason == ReasonCredentialUnavailable) {
			if err := inv.gov.Outcomes().Finish(ctx, c.Tenant, c.Tool, key, govern.Outcome{State: govern.OutcomePending, Created: inv.gov.Now(), ArgsHash: argsHash, Call: outcomeCall(c)}); err != nil {
				inv.log.Warn("invoker: writing an idempotency record failed", "tool", st.tool, "err", err)
				return fail(session.StatusError, ReasonStoreError,
					fmt.Sprintf("tool %q: its idempotency record could not be written; the call did not run", st.tool)), true
			}
			return Result{}, false
		}
		r.Deduped, r.DecisionID, r.Latency = true, "", 0
		if r.Artifact != nil {
			sess.Grant(r.Artifact.Ref)
		}
		for _, f := range r.Files {
			if f.Ref != "" {
				sess.Grant(f.Ref)
			}
		}
		inv.notify(ctx, st, inv.event(Deduped, sess, st))
		return r, true
	case govern.OutcomePending:
		return inv.refuse(ctx, sess, st, fail(session.StatusError, ReasonIdempotencyPending,
			fmt.Sprintf("tool %q: a call with idempotency key %q is still running; it was not started again", st.tool, key))), true
	}
	return inv.refuse(ctx, sess, st, fail(session.StatusError, ReasonOutcomeUnknown,
		fmt.Sprintf("tool %q: an earlier call with idempotency key %q may or may not have taken effect; it is not run again", st.tool, key))), true
}

// outcomeCall is govern.Outcome.Call for call c: its chain and number.
func outcomeCall(c govern.Call) string {
	return c.ChainID + "#" + strconv.Itoa(c.Seq)
}

// finishOutcome records how the call ended under its idempotency key.
func (inv *Invoker) finishOutcome(ctx context.Context, sess *session.Session, st *callState, c govern.Call, r Result, state govern.OutcomeState) {
	o := govern.Outcome{State: state, Created: st.start, ArgsHash: st.argsHash, Call: outcomeCall(c)}
	if state != govern.OutcomeUnknown {
		if r.OK() {
			o.State = govern.OutcomeOK
		} else {
			o.State = govern.OutcomeFailed
		}
		keep := r
		keep.Latency, keep.DecisionID = 0, ""
		if keep.Plain && keep.Artifact != nil {
			// The stored artifact holds the value: record its envelope.
			keep.Value, _ = json.Marshal(keep.Artifact)
			keep.Plain = false
		}
		o.Result, _ = json.Marshal(keep)
		if len(o.Result) > maxRecordedResult {
			o.State = govern.OutcomeFailed
			o.Result, _ = json.Marshal(fail(session.StatusError, ReasonOutcomeUnknown,
				fmt.Sprintf("tool %q ran under this idempotency key, but its result was too large to record; it is not run again", st.tool)))
		}
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := inv.gov.Outcomes().Finish(fctx, c.Tenant, c.Tool, st.idemKey, o); err != nil {
		inv.log.Warn("invoker: recording an idempotency outcome failed; the key stays pending", "tool", st.tool, "err", err)
	}
}

// maxRecordedResult bounds the encoded result an idempotency record keeps.
const maxRecordedResult = 256 << 10

// health tells the Governor how an execution ended: failures count for
// the calling tenant only, an upstream's rate limit for everyone.
func (inv *Invoker) health(tenant, tool string, r Result, failed bool) {
	h := inv.gov.Health()
	switch {
	case !failed:
		h.CallSucceeded(tenant, tool)
	case r.Reason == ReasonRateLimited:
		h.RateLimited(tool, inv.gov.Now().Add(r.RetryAfter))
	case r.Reason == ReasonToolError, r.Reason == ReasonToolPanic, r.Reason == ReasonCallTimeout:
		h.CallFailed(tenant, tool, r.Message)
	}
}

// Bounds of what a tool reports for the audit trail.
const (
	maxCitations  = 16
	maxMutations  = 32
	maxAuditEntry = 512
)

// audit copies a tool's citations and mutations into r, bounded.
func audit(r *Result, out toolbox.Output) {
	for i, c := range out.Citations {
		if i == maxCitations {
			break
		}
		r.Citations = append(r.Citations, toolbox.Citation{Source: clipTo(c.Source, maxAuditEntry), Title: clipTo(c.Title, maxAuditEntry)})
	}
	for i, m := range out.Mutations {
		if i == maxMutations {
			break
		}
		r.Mutations = append(r.Mutations, clipTo(m, maxAuditEntry))
	}
}

// truncateStrings cuts every string in the JSON value v to at most n
// characters and reports whether it cut any. It walks the tokens without
// recursion, so the depth of v costs no stack.
func truncateStrings(v json.RawMessage, n int) (json.RawMessage, bool, error) {
	if !bytes.ContainsRune(v, '"') {
		return v, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(v))
	// first[i] says the container at depth i has no element yet; isObj[i]
	// whether it is an object, whose members alternate key and value.
	var first, isObj []bool
	var keyNext []bool
	cut := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		d := len(first) - 1
		if dl, ok := tok.(json.Delim); ok && (dl == '}' || dl == ']') {
			out.WriteByte(byte(dl))
			first, isObj, keyNext = first[:d], isObj[:d], keyNext[:d]
			if d > 0 && isObj[d-1] {
				keyNext[d-1] = true
			}
			continue
		}
		isKey := d >= 0 && isObj[d] && keyNext[d]
		if d >= 0 {
			switch {
			case isKey && !first[d]:
				out.WriteByte(',')
			case !isObj[d] && !first[d]:
				out.WriteByte(',')
			case isObj[d] && !isKey:
				out.WriteByte(':')
			}
			first[d] = false
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			if d >= 0 && isObj[d] {
				keyNext[d] = false
			}
			first, isObj, keyNext = append(first, true), append(isObj, t == '{'), append(keyNext, t == '{')
			continue
		case string:
			if !isKey && utf8.RuneCountInString(t) > n {
				t = string([]rune(t)[:n])
				cut = true
			}
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(t)
			out.Truncate(out.Len() - 1) // Encode's newline
		case json.Number:
			out.WriteString(t.String())
		case bool:
			out.WriteString(fmt.Sprint(t))
		case nil:
			out.WriteString("null")
		}
		if d >= 0 && isObj[d] {
			keyNext[d] = !isKey
		}
	}
	if !cut {
		return v, false, nil
	}
	return out.Bytes(), true, nil
}
