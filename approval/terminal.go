package approval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/airlockrt/airlock/internal/visible"
	"github.com/airlockrt/airlock/invoker"
)

// TerminalApprover is an invoker.ApprovalHandler that asks a person at a
// terminal: it prints the tool, its risk and the exact arguments and reads a
// y/N answer, within the approval timeout. Build it with Terminal.
//
// Prompts are asked one at a time; concurrent calls wait their turn (within
// their own timeout). An answer counts only if it was typed after its prompt
// appeared, so a keystroke meant for an earlier, expired prompt never
// approves a later one. Argument text is printed as Escape renders it, so a
// chain cannot draw on the terminal nor hide or reorder part of its
// arguments.
//
// A TerminalApprover is safe for concurrent use.
type TerminalApprover struct {
	out   io.Writer
	src   *stampedReader
	br    *bufio.Reader
	clock func() time.Time

	turn  chan struct{} // one prompt at a time
	lines chan line     // from the reader goroutine
	stop  chan struct{}
	close sync.Once
}

// line is one line read from the input, stamped with the time the bytes of
// its end arrived.
type line struct {
	text string
	at   time.Time
	err  error
}

// maxAnswer is the longest answer line kept; the rest of a longer line is
// read and discarded.
const maxAnswer = 256

// Terminal returns an approver that prompts on out and reads answers from in
// (typically os.Stderr and os.Stdin). It starts one goroutine that reads in
// from now on, so that text typed before a prompt appears is recognised as
// such and ignored; Close stops that goroutine once its current read returns.
func Terminal(in io.Reader, out io.Writer) *TerminalApprover {
	src := &stampedReader{r: in, now: time.Now}
	t := &TerminalApprover{
		out: out, src: src, br: bufio.NewReaderSize(src, maxAnswer), clock: time.Now,
		turn: make(chan struct{}, 1), lines: make(chan line), stop: make(chan struct{}),
	}
	go t.read()
	return t
}

var _ invoker.ApprovalHandler = (*TerminalApprover)(nil)

// Approve implements invoker.ApprovalHandler. "y" or "yes" (any case)
// approves; any other line denies. Every line Approve prints ends with a
// newline, the prompt included (the answer is typed on the next line), so
// whatever else writes to the terminal meanwhile, such as a progress line,
// starts on a line of its own.
//
// When ctx ends first Approve prints why the call was denied and returns
// Denied with ctx's error: context.Canceled (an interrupt, Ctrl-C in
// `airlock run`) says the prompt was interrupted, context.DeadlineExceeded
// that no answer came within the approval timeout. A ctx that ends while the
// call waits for its turn returns at once, without a prompt. When the input
// ends it returns ErrNoAnswer.
func (t *TerminalApprover) Approve(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return invoker.Denied, ctx.Err()
	}
	defer func() { <-t.turn }()
	if err := ctx.Err(); err != nil {
		return invoker.Denied, err // it ended while this call waited its turn
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nairlock: approval needed: tool %s (%s risk)", req.Tool, req.Risk)
	if req.Line > 0 {
		fmt.Fprintf(&b, ", called on line %d of the script", req.Line)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  arguments: %s\n", Escape(string(req.Args)))
	fmt.Fprintf(&b, "  sha256:    %s\n", req.ArgsHash)
	if dl, ok := ctx.Deadline(); ok {
		fmt.Fprintf(&b, "approve? [y/N] (answer within %s, then Enter)\n", time.Until(dl).Round(time.Second))
	} else {
		b.WriteString("approve? [y/N] (then Enter)\n")
	}
	shown := t.clock()
	if _, err := io.WriteString(t.out, b.String()); err != nil {
		return invoker.Denied, fmt.Errorf("approval: writing the prompt: %w", err)
	}
	for {
		select {
		case l, ok := <-t.lines:
			if !ok || l.err != nil {
				fmt.Fprintln(t.out, "\nairlock: no answer (input ended): the call was denied")
				return invoker.Denied, ErrNoAnswer
			}
			if l.at.Before(shown) {
				continue // typed before this prompt appeared
			}
			switch strings.ToLower(strings.TrimSpace(l.text)) {
			case "y", "yes":
				fmt.Fprintln(t.out, "airlock: approved")
				return invoker.Approved, nil
			}
			fmt.Fprintln(t.out, "airlock: denied")
			return invoker.Denied, nil
		case <-ctx.Done():
			// The leading newline ends a line the terminal may have left
			// open: a partly typed answer, or the ^C of an interrupt.
			if errors.Is(ctx.Err(), context.Canceled) {
				fmt.Fprintln(t.out, "\nairlock: approval prompt interrupted: the call was denied")
			} else {
				fmt.Fprintln(t.out, "\nairlock: no answer within the approval timeout: the call was denied")
			}
			return invoker.Denied, ctx.Err()
		}
	}
}

// Close stops the reader goroutine once its current read returns (at the
// next line or the end of the input). Prompts after Close fail with
// ErrNoAnswer.
func (t *TerminalApprover) Close() error {
	t.close.Do(func() { close(t.stop) })
	return nil
}

// read delivers input lines to prompts until the input ends or Close.
// After the input ends, every later prompt gets ErrNoAnswer.
func (t *TerminalApprover) read() {
	defer close(t.lines)
	for {
		text, err := t.readLine()
		l := line{text: text, at: t.src.last, err: err}
		if err != nil && text != "" {
			l.err = nil // a last line without a newline still counts
		}
		select {
		case t.lines <- l:
		case <-t.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line, keeping at most maxAnswer bytes of it.
func (t *TerminalApprover) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := t.br.ReadSlice('\n')
		if len(b) < maxAnswer {
			b = append(b, chunk[:min(len(chunk), maxAnswer-len(b))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), err
	}
}

// stampedReader records when its last Read returned. bufio reads only until
// it finds a newline, so the most recent Read is the one that delivered the
// end of the line just parsed: its time is when that line arrived.
type stampedReader struct {
	r    io.Reader
	now  func() time.Time
	last time.Time // written and read by the reader goroutine only
}

func (s *stampedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.last = s.now()
	return n, err
}

// Escape returns s as a person must see it to decide on it: every
// control, format (such as a bidirectional override), invisible or invalid
// character as an escape, long runs of spaces counted; printable text,
// non-ASCII included, is kept. It is the renderer of every approval prompt
// and preview (internal/visible, whose doc lists what is escaped).
func Escape(s string) string { return visible.String(s) }
