package sandbox

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/evanw/esbuild/pkg/api"
)

// parseWorkerEnv, set to "1", makes RunParseWorker serve one parse and exit
// instead of returning.
const parseWorkerEnv = "AIRLOCK_PARSE_WORKER"

// Bounds of the worker's frames. A request is the source and the options;
// a response keeps at most maxWorkerMessages errors and as many warnings,
// each message's line text cut to what follows its column by
// workerLineTail bytes, and drops the line text of later messages once
// workerLineTexts bytes of it are kept: a storm of errors on one long line
// would otherwise repeat that line in every message.
const (
	maxWorkerRequest  = 256 << 20
	maxWorkerMessages = 100
	workerLineTail    = 256
	workerLineTexts   = 8 << 20
)

// workerReady is set by RunParseWorker when this process's executable
// serves the worker mode: a binary whose main does not call it (another
// program embedding the sandbox, a test binary without the hook) would run
// its own main instead, so large parses stay in process there.
var workerReady atomic.Bool

// RunParseWorker is the entry point of the parse worker, and must be the
// first thing main (and TestMain, in tests that parse scripts over 64 KiB)
// calls. Started by the sandbox as a worker (AIRLOCK_PARSE_WORKER=1 in its
// environment), it reads one parse request on stdin, parses it with
// esbuild, writes the result on stdout and exits the process; it exits
// early when its stdin closes (the host gave up or died). Otherwise it
// notes that this executable can be a worker and returns at once.
//
// A program that never calls it still works: its large parses run in
// process, where a parse over its budget cannot be stopped and keeps its
// parse slot (RATIONALE.md, "Why parse large scripts in a worker
// process?").
func RunParseWorker() {
	if os.Getenv(parseWorkerEnv) != "1" {
		workerReady.Store(true)
		return
	}
	os.Exit(serveParse(os.Stdin, os.Stdout, os.Stderr))
}

// workerRequest is what the host sends a worker: gob keeps strings as
// bytes, so a source that is not valid UTF-8 arrives as it was.
type workerRequest struct {
	Source  string
	Options api.TransformOptions
}

// workerResponse is what a worker sends back: the parts of
// api.TransformResult the sandbox reads.
type workerResponse struct {
	Code, Map        []byte
	Errors, Warnings []workerMessage
}

type workerMessage struct {
	Text     string
	Location *api.Location
}

// serveParse is the worker: one request in, one response out. It returns
// the process's exit code.
func serveParse(stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReader(io.LimitReader(stdin, maxWorkerRequest))
	var req workerRequest
	if err := gob.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(stderr, "airlock parse worker: reading the request: %v\n", err)
		return 2
	}
	go func() {
		// The host keeps stdin open until the worker has exited: its end
		// means the host is gone.
		_, _ = io.Copy(io.Discard, in)
		os.Exit(3)
	}()
	r := api.Transform(req.Source, req.Options)
	out := bufio.NewWriter(stdout)
	if err := gob.NewEncoder(out).Encode(newWorkerResponse(r)); err != nil {
		fmt.Fprintf(stderr, "airlock parse worker: writing the response: %v\n", err)
		return 2
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "airlock parse worker: writing the response: %v\n", err)
		return 2
	}
	return 0
}

func newWorkerResponse(r api.TransformResult) *workerResponse {
	resp := &workerResponse{Code: r.Code, Map: r.Map}
	texts := 0
	keep := func(ms []api.Message) []workerMessage {
		out := make([]workerMessage, 0, min(len(ms), maxWorkerMessages))
		for _, m := range ms[:min(len(ms), maxWorkerMessages)] {
			wm := workerMessage{Text: m.Text}
			if m.Location != nil {
				loc := *m.Location
				if loc.Column >= 0 && len(loc.LineText) > loc.Column+workerLineTail {
					loc.LineText = loc.LineText[:loc.Column+workerLineTail]
				}
				if texts += len(loc.LineText); texts > workerLineTexts {
					loc.LineText = ""
				}
				wm.Location = &loc
			}
			out = append(out, wm)
		}
		return out
	}
	resp.Errors, resp.Warnings = keep(r.Errors), keep(r.Warnings)
	return resp
}

func (w *workerResponse) result() api.TransformResult {
	msgs := func(ms []workerMessage) []api.Message {
		var out []api.Message
		for _, m := range ms {
			out = append(out, api.Message{Text: m.Text, Location: m.Location})
		}
		return out
	}
	return api.TransformResult{Code: w.Code, Map: w.Map, Errors: msgs(w.Errors), Warnings: msgs(w.Warnings)}
}

// errNoWorker: a parse cannot run in a worker process (this executable
// does not serve the worker mode, or the process could not start); it runs
// in process instead.
var errNoWorker = errors.New("sandbox: no parse worker")

// parseInWorker parses src in a worker process: this executable run again
// with AIRLOCK_PARSE_WORKER=1, one process per parse. When ctx ends it
// kills the worker's process group and returns ctx's error once the
// process is gone. It returns errNoWorker, having started nothing, when
// the executable does not serve the worker mode or cannot be started.
// started, if not nil, is told the worker's process id.
func parseInWorker(ctx context.Context, src string, opts api.TransformOptions, started func(pid int)) (api.TransformResult, error) {
	if !workerReady.Load() || len(src) > maxWorkerRequest-1<<20 {
		return api.TransformResult{}, errNoWorker
	}
	if err := ctx.Err(); err != nil {
		return api.TransformResult{}, err
	}
	exe, err := workerExecutable()
	if err != nil {
		return api.TransformResult{}, fmt.Errorf("%w: %w", errNoWorker, err)
	}
	cmd := exec.Command(exe)
	cmd.Args = []string{"airlock-parse-worker"} // what ps shows
	// Nothing of the host's environment (its secrets) reaches the worker;
	// one core is all it may use.
	cmd.Env = []string{parseWorkerEnv + "=1", "GOMAXPROCS=1"}
	cmd.SysProcAttr = workerProcAttr()
	stderr := &headBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return api.TransformResult{}, fmt.Errorf("%w: %w", errNoWorker, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return api.TransformResult{}, fmt.Errorf("%w: %w", errNoWorker, err)
	}
	if err := cmd.Start(); err != nil {
		return api.TransformResult{}, fmt.Errorf("%w: %w", errNoWorker, err)
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	type answer struct {
		resp workerResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		w := bufio.NewWriter(stdin)
		if a.err = gob.NewEncoder(w).Encode(&workerRequest{Source: src, Options: opts}); a.err == nil {
			a.err = w.Flush()
		}
		if a.err == nil {
			limit := int64(64<<20) + 16*int64(len(src))
			a.err = gob.NewDecoder(bufio.NewReader(io.LimitReader(stdout, limit))).Decode(&a.resp)
		}
		done <- a
	}()
	select {
	case a := <-done:
		if a.err != nil {
			werr := cmd.Wait()
			if werr == nil {
				werr = a.err
			}
			return api.TransformResult{}, fmt.Errorf("sandbox: the parse worker failed: %w (%s)", werr, stderr.String())
		}
		// A worker that has answered has nothing left to do: not waiting
		// for it to exit saves its exit (a second, in a binary built with
		// -race).
		killWorker(cmd.Process)
		_ = cmd.Wait()
		return a.resp.result(), nil
	case <-ctx.Done():
		killWorker(cmd.Process)
		<-done // the pipes close with the process
		_ = cmd.Wait()
		return api.TransformResult{}, ctx.Err()
	}
}

// workerExecutable is the file this process runs from.
func workerExecutable() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		// Linux: this process's own file, even if it was replaced on disk
		// since it started.
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	max int
	b   []byte
}

func (t *headBuffer) Write(p []byte) (int, error) {
	if n := t.max - len(t.b); n > 0 {
		t.b = append(t.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

func (t *headBuffer) String() string { return string(t.b) }
