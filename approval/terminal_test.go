package approval_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/invoker"
)

// screen is a concurrency-safe output buffer.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// prompts counts the prompts shown so far.
func (s *screen) prompts() int { return strings.Count(s.String(), "approve? [y/N]") }

type terminal struct {
	*approval.TerminalApprover
	in  *io.PipeWriter
	out *screen
}

func newTerminal(t *testing.T) *terminal {
	r, w := io.Pipe()
	out := &screen{}
	term := &terminal{approval.Terminal(r, out), w, out}
	t.Cleanup(func() {
		w.Close()
		term.Close()
	})
	return term
}

// ask runs Approve in the background and waits for its prompt.
func (term *terminal) ask(t *testing.T, ctx context.Context, args string) <-chan answer {
	t.Helper()
	n := term.out.prompts()
	ch := make(chan answer, 1)
	go func() {
		d, err := term.Approve(ctx, request("acme", args))
		ch <- answer{d, err}
	}()
	require.Eventually(t, func() bool { return term.out.prompts() > n }, 5*time.Second, time.Millisecond)
	return ch
}

func (term *terminal) typeLine(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(term.in, s+"\n")
	require.NoError(t, err)
}

func TestTerminalAnswers(t *testing.T) {
	tests := []struct {
		typed string
		want  invoker.Decision
	}{
		{"y", invoker.Approved},
		{"YES", invoker.Approved},
		{"  yes\r", invoker.Approved},
		{"n", invoker.Denied},
		{"", invoker.Denied},
		{"yess", invoker.Denied},
		{strings.Repeat("y", 5000), invoker.Denied},
	}
	for _, tc := range tests {
		t.Run(tc.typed[:min(len(tc.typed), 8)], func(t *testing.T) {
			term := newTerminal(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ch := term.ask(t, ctx, `{"text":"hi","to":"ops"}`)
			term.typeLine(t, tc.typed)
			a := <-ch
			require.NoError(t, a.err)
			require.Equal(t, tc.want, a.d)
			out := term.out.String()
			require.Contains(t, out, "tool send_message (HIGH risk)")
			require.Contains(t, out, `arguments: {"text":"hi","to":"ops"}`)
			require.Contains(t, out, request("acme", `{"text":"hi","to":"ops"}`).ArgsHash)
			require.Contains(t, out, "answer within")
			require.Contains(t, out, "airlock: "+tc.want.String())
		})
	}
}

func TestTerminalTimeout(t *testing.T) {
	term := newTerminal(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ch := term.ask(t, ctx, `{}`)
	a := <-ch
	require.ErrorIs(t, a.err, context.DeadlineExceeded)
	require.Equal(t, invoker.Denied, a.d)
	require.Contains(t, term.out.String(), "no answer within the approval timeout: the call was denied")
	require.NotContains(t, term.out.String(), "interrupted")

	// A "y" typed after that prompt expired must not approve the next one.
	term.typeLine(t, "y")
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	time.Sleep(5 * time.Millisecond)
	ch = term.ask(t, ctx2, `{"second":true}`)
	select {
	case a := <-ch:
		t.Fatalf("a stale line answered the second prompt: %v", a)
	case <-time.After(50 * time.Millisecond):
	}
	term.typeLine(t, "n")
	a = <-ch
	require.NoError(t, a.err)
	require.Equal(t, invoker.Denied, a.d)
}

// TestTerminalInterrupted: a cancelled ctx (Ctrl-C in airlock run) says the
// prompt was interrupted and the call denied, not that time ran out.
func TestTerminalInterrupted(t *testing.T) {
	term := newTerminal(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := term.ask(t, ctx, `{}`)
	cancel()
	a := <-ch
	require.ErrorIs(t, a.err, context.Canceled)
	require.Equal(t, invoker.Denied, a.d)
	out := term.out.String()
	require.Contains(t, out, "\nairlock: approval prompt interrupted: the call was denied\n")
	require.NotContains(t, out, "approval timeout")

	// A call whose ctx ended while it waited for its turn shows no prompt.
	first := term.ask(t, context.Background(), `{"n":1}`)
	gone, cancelGone := context.WithCancel(context.Background())
	second := make(chan answer, 1)
	go func() {
		d, err := term.Approve(gone, request("acme", `{"n":2}`))
		second <- answer{d, err}
	}()
	cancelGone()
	a = <-second
	require.ErrorIs(t, a.err, context.Canceled)
	term.typeLine(t, "n")
	require.Equal(t, invoker.Denied, (<-first).d)
	require.Equal(t, 2, term.out.prompts(), "no prompt for the call that gave up")

	// Nor for a call whose ctx had ended before it got its turn, though the
	// turn is free (the select between the two would pick either).
	for range 32 {
		d, err := term.Approve(gone, request("acme", `{"n":3}`))
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, invoker.Denied, d)
	}
	require.Equal(t, 2, term.out.prompts())
}

// TestTerminalLinesEnd: the prompt and every outcome end their line, so a
// line written by someone else meanwhile (a progress line of airlock run)
// starts at the beginning of a line.
func TestTerminalLinesEnd(t *testing.T) {
	const progress = "airlock: #1 send_message denied cancelled (2ms)\n"
	tests := []struct {
		name   string
		answer func(term *terminal, cancel context.CancelFunc)
		want   string
	}{
		{"approved", func(term *terminal, _ context.CancelFunc) { _, _ = io.WriteString(term.in, "y\n") }, "airlock: approved\n"},
		{"denied", func(term *terminal, _ context.CancelFunc) { _, _ = io.WriteString(term.in, "n\n") }, "airlock: denied\n"},
		{"interrupted", func(_ *terminal, cancel context.CancelFunc) { cancel() }, "approval prompt interrupted: the call was denied\n"},
		{"input ended", func(term *terminal, _ context.CancelFunc) { term.in.Close() }, "no answer (input ended): the call was denied\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term := newTerminal(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ch := term.ask(t, ctx, `{"to":"ops"}`)
			shown := term.out.String()
			require.True(t, strings.HasSuffix(shown, "\n"), "the prompt ends its line: %q", shown)
			_, _ = term.out.Write([]byte(progress))
			tc.answer(term, cancel)
			<-ch
			out := term.out.String()
			require.True(t, strings.HasSuffix(out, tc.want), "%q ends with %q", out, tc.want)
			lines := strings.Split(out, "\n")
			require.Contains(t, lines, strings.TrimSuffix(progress, "\n"), "the progress line is a line of its own")
		})
	}
}

func TestTerminalOnePromptAtATime(t *testing.T) {
	term := newTerminal(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := term.ask(t, ctx, `{"n":1}`)
	second := make(chan answer, 1)
	go func() {
		d, err := term.Approve(ctx, request("acme", `{"n":2}`))
		second <- answer{d, err}
	}()
	time.Sleep(20 * time.Millisecond)
	require.Equal(t, 1, term.out.prompts(), "the second prompt waits for the first")
	term.typeLine(t, "y")
	require.Equal(t, invoker.Approved, (<-first).d)
	require.Eventually(t, func() bool { return term.out.prompts() == 2 }, 5*time.Second, time.Millisecond)
	term.typeLine(t, "n")
	require.Equal(t, invoker.Denied, (<-second).d)

	// A caller whose turn never comes gives up with its own context.
	blocker := term.ask(t, ctx, `{"n":3}`)
	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	_, err := term.Approve(short, request("acme", `{"n":4}`))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	term.typeLine(t, "y")
	require.Equal(t, invoker.Approved, (<-blocker).d)
}

func TestTerminalInputEnds(t *testing.T) {
	term := newTerminal(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ch := term.ask(t, ctx, `{}`)
	term.in.Close()
	a := <-ch
	require.ErrorIs(t, a.err, approval.ErrNoAnswer)
	require.Equal(t, invoker.Denied, a.d)
	d, err := term.Approve(ctx, request("acme", `{}`))
	require.ErrorIs(t, err, approval.ErrNoAnswer, "later prompts fail at once")
	require.Equal(t, invoker.Denied, d)
}

func TestTerminalLastLineWithoutNewline(t *testing.T) {
	pr, pw := io.Pipe()
	out := &screen{}
	term := approval.Terminal(pr, out)
	defer term.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ch := make(chan answer, 1)
	go func() {
		d, err := term.Approve(ctx, request("acme", `{}`))
		ch <- answer{d, err}
	}()
	require.Eventually(t, func() bool { return out.prompts() == 1 }, 5*time.Second, time.Millisecond)
	_, _ = io.WriteString(pw, "y")
	pw.Close()
	a := <-ch
	require.NoError(t, a.err)
	require.Equal(t, invoker.Approved, a.d)
}

func TestTerminalEscapesArguments(t *testing.T) {
	term := newTerminal(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// JSON already escapes C0 controls; C1 controls, DEL and bidi overrides
	// it leaves raw.
	ch := term.ask(t, ctx, "{\"to\":\"ops\u009b2J\u202e\x7f\",\"é\":\"ok\"}")
	term.typeLine(t, "n")
	<-ch
	out := term.out.String()
	require.Contains(t, out, `{"to":"ops\u009b2J\u202e\u007f","é":"ok"}`)
	require.NotContains(t, out, "\u009b")
	require.NotContains(t, out, "\u202e")
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\there", `tab\u0009here`},
		{"bell\a", `bell\u0007`},
		{"esc\x1b[2J", `esc\u001b[2J`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"pad" + strings.Repeat(" ", 4096) + "end", "pad⟨4096 spaces⟩end"},
		{"日本語 ok", "日本語 ok"},
		{"\U000E0001tag", `\U000e0001tag`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			require.Equal(t, tc.want, approval.Escape(tc.in))
		})
	}
}

// TestTerminalNamesTheLine: the prompt says which line of the script made
// the call, when it is known, and nothing of a line otherwise.
func TestTerminalNamesTheLine(t *testing.T) {
	for _, line := range []int{0, 7} {
		term := newTerminal(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		req := request("acme", `{"to":"ops"}`)
		req.Line, req.Column = line, 3
		ch := make(chan answer, 1)
		go func() {
			d, err := term.Approve(ctx, req)
			ch <- answer{d, err}
		}()
		require.Eventually(t, func() bool { return term.out.prompts() > 0 }, 5*time.Second, time.Millisecond)
		term.typeLine(t, "y")
		require.Equal(t, invoker.Approved, (<-ch).d)
		cancel()
		out := term.out.String()
		if line == 0 {
			require.Contains(t, out, "tool send_message (HIGH risk)\n")
			require.NotContains(t, out, "line")
		} else {
			require.Contains(t, out, "tool send_message (HIGH risk), called on line 7 of the script\n")
		}
	}
}
