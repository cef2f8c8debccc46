package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/internal/scrub"
	"github.com/airlockrt/airlock/toolbox"
)

// conn is one session with a server, kept up by supervise: started,
// watched until it ends, restarted after a backoff that doubles with each
// failure in a row (minBackoff to maxBackoff).
type conn struct {
	s      *server
	tenant string // "" for the catalog session
	quit   chan struct{}
	// users counts the calls holding a tenant session, used when it was
	// last taken or given back (both guarded by s.mu): an idle session may
	// be closed for another tenant's.
	users int
	used  time.Time
	// tried is closed once the first start ended, up or down: a tenant's
	// first call waits for it rather than fail while the session starts.
	tried     chan struct{}
	triedOnce sync.Once

	mu      sync.Mutex
	sess    *sdk.ClientSession // nil while down
	down    error              // why it is down; nil while up or before the first try
	retryAt time.Time          // when the next start is tried, while down
	starts  int
	closed  bool
	pid     int // of the last stdio process started (for tests)
	// scrub finds the secrets of the last start (the values its ${env:}
	// placeholders resolved to, and every header value) in what the server
	// says back: errors, results, files.
	scrub *scrub.Scrubber
}

// redact returns err with every secret value of the session replaced, for
// errors that may quote the server (Status, logs).
func (c *conn) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := c.hide(err.Error())
	if msg == err.Error() {
		return err
	}
	return redacted{msg: msg, err: err}
}

// hide replaces every secret of the session in s, in any form the
// scrubber knows (literal, escaped, encoded, truncated).
func (c *conn) hide(s string) string {
	if sc := c.scrubber(); sc != nil {
		return sc.String(s)
	}
	return s
}

// declares reports whether t's declaration (name, title, description,
// schemas) holds a secret of the session: such a tool is not registered,
// as its text reaches the model.
func (c *conn) declares(t *sdk.Tool) bool {
	sc := c.scrubber()
	if sc == nil {
		return false
	}
	b, err := json.Marshal(t)
	return err != nil || sc.Contains(b)
}

func (c *conn) scrubber() *scrub.Scrubber {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scrub
}

// redacted is an error whose message hides secrets but which still wraps
// the original for errors.Is (toolbox.ErrOutcomeUnknown).
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

func (s *server) newConn(tenant string) *conn {
	return &conn{s: s, tenant: tenant, quit: make(chan struct{}), tried: make(chan struct{})}
}

// await waits until the first start ended (or ctx or close).
func (c *conn) await(ctx context.Context) {
	select {
	case <-c.tried:
	case <-c.quit:
	case <-ctx.Done():
	}
}

func (c *conn) triedStart() { c.triedOnce.Do(func() { close(c.tried) }) }

// session returns the live session, or nil.
func (c *conn) session() *sdk.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// use returns the live session, or an *toolbox.UnavailableError saying why
// there is none and when the next start is tried.
func (c *conn) use() (*sdk.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, nil
	}
	why := "it is starting"
	if c.down != nil {
		why = c.down.Error()
	}
	var wait time.Duration
	if !c.retryAt.IsZero() {
		wait = max(time.Until(c.retryAt), 0)
	}
	return nil, &toolbox.UnavailableError{RetryAfter: wait,
		Err: fmt.Errorf("mcp server %q is not connected (%s)", c.s.spec.Name, why)}
}

func (c *conn) close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.quit)
	}
	sess := c.sess
	c.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
}

// supervise keeps the session up until close.
func (c *conn) supervise() {
	failures := 0
	for {
		select {
		case <-c.quit:
			return
		default:
		}
		started := time.Now()
		sess, stop, err := c.start()
		if err == nil {
			c.mu.Lock()
			closed := c.closed
			if !closed {
				c.sess, c.down, c.retryAt = sess, nil, time.Time{}
				c.starts++
			}
			c.mu.Unlock()
			c.triedStart()
			if closed {
				_ = sess.Close()
				stop()
				return
			}
			if c.starts > 1 {
				c.s.m.log.Info("mcp: server reconnected", "server", c.s.spec.Name, "restarts", c.starts-1)
			}
			var relist *time.Timer
			if c.tenant == "" {
				if lerr := c.s.list(sess); lerr != nil {
					c.s.m.log.Warn("mcp: listing tools failed; restarting the session", "server", c.s.spec.Name, "err", c.redact(lerr))
					_ = sess.Close()
				} else if c.s.spec.URL != "" {
					// Over HTTP a tools/list_changed sent as the session
					// starts (tools registered once initialized) can precede
					// the event stream that would carry it: list once more.
					relist = time.AfterFunc(relistDelay, func() {
						select {
						case c.s.refresh <- struct{}{}:
						default:
						}
					})
				}
			}
			werr := sess.Wait()
			if relist != nil {
				relist.Stop()
			}
			why := stop()
			if why == nil {
				why = werr
			}
			if why == nil {
				why = errors.New("the server closed the connection")
			}
			err = fmt.Errorf("the connection ended: %w", why)
			if time.Since(started) > maxBackoff {
				failures = 0 // it ran well for a while: start again quickly
			}
		}
		failures++
		err = c.redact(err)
		wait := min(minBackoff<<min(failures-1, 16), maxBackoff)
		c.mu.Lock()
		c.sess, c.down, c.retryAt = nil, err, time.Now().Add(wait)
		closed := c.closed
		c.mu.Unlock()
		c.triedStart()
		if closed {
			return
		}
		c.s.m.log.Warn("mcp: server down; restarting after a pause", "server", c.s.spec.Name,
			"err", err, "retry_in", wait.String())
		t := time.NewTimer(wait)
		select {
		case <-c.quit:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// start starts a session. stop ends what start started (the process) and
// says how it ended, or nil.
func (c *conn) start() (sess *sdk.ClientSession, stop func() error, err error) {
	ctx, cancel := context.WithTimeout(c.s.m.ctx, c.s.spec.StartTimeout)
	defer cancel()
	var transport sdk.Transport
	stop = func() error { return nil }
	var secrets []string
	for _, v := range c.s.spec.Headers {
		secrets = append(secrets, v) // a literal header value is a credential too
	}
	defer func() {
		sc := scrub.New(secrets)
		c.mu.Lock()
		c.scrub = sc
		c.mu.Unlock()
	}()
	if c.s.spec.Command != "" {
		p, err := c.s.spawn(ctx, &secrets)
		if err != nil {
			return nil, nil, err
		}
		transport = &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin, MaxLineLength: MaxMessageBytes}
		stop = p.stop
		c.mu.Lock()
		c.pid = p.cmd.Process.Pid
		c.mu.Unlock()
	} else {
		headers, err := c.s.expandAll(ctx, c.s.spec.Headers, &secrets)
		if err != nil {
			return nil, nil, err
		}
		client := *c.s.m.client
		client.Transport = &headerTransport{next: client.Transport, headers: headers}
		transport = &sdk.StreamableClientTransport{Endpoint: c.s.spec.URL, HTTPClient: &client, MaxRetries: 2}
	}
	opts := &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}, KeepAliveFailureThreshold: 2}
	if c.s.spec.KeepAlive > 0 {
		opts.KeepAlive = c.s.spec.KeepAlive
	}
	if c.tenant == "" {
		opts.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case c.s.refresh <- struct{}{}:
			default:
			}
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "airlock", Version: "1"}, opts)
	sess, err = client.Connect(ctx, transport, nil)
	if err != nil {
		why := stop()
		if ctx.Err() != nil && c.s.m.ctx.Err() == nil {
			err = fmt.Errorf("did not initialize within %s", c.s.spec.StartTimeout)
		}
		if why != nil {
			err = fmt.Errorf("%w (%v)", err, why)
		}
		return nil, nil, fmt.Errorf("starting: %w", err)
	}
	return sess, stop, nil
}

// process is a running stdio server.
type process struct {
	cmd   *exec.Cmd
	stdin interface {
		Write([]byte) (int, error)
		Close() error
	}
	stdout interface {
		Read([]byte) (int, error)
		Close() error
	}
	done chan struct{}
	err  error
}

// relistDelay is when an HTTP session's tools are listed once more.
const relistDelay = time.Second

// passEnv are the variables of airlock's environment a stdio server gets;
// the rest (API keys, cloud credentials) stay with airlock.
var passEnv = []string{"PATH", "HOME", "TMPDIR", "LANG"}

func (s *server) spawn(ctx context.Context, secrets *[]string) (*process, error) {
	env := make([]string, 0, len(passEnv)+len(s.spec.Env))
	for _, k := range passEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	extra, err := s.expandAll(ctx, s.spec.Env, secrets)
	if err != nil {
		return nil, err
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(s.spec.Command, s.spec.Args...)
	cmd.Env = env
	cmd.Stderr = nil // discarded: it may print what it was given
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %q: %w", s.spec.Command, errors.Unwrap(err))
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop ends the process: stdin closed, then SIGTERM to its process group
// after a second, SIGKILL after two more. It returns how the process
// ended when it ended on its own.
func (p *process) stop() error {
	select {
	case <-p.done:
		return exitError(p.err)
	default:
	}
	_ = p.stdin.Close()
	for _, step := range []struct {
		wait time.Duration
		sig  syscall.Signal
	}{{time.Second, syscall.SIGTERM}, {2 * time.Second, syscall.SIGKILL}} {
		select {
		case <-p.done:
			return nil
		case <-time.After(step.wait):
			_ = syscall.Kill(-p.cmd.Process.Pid, step.sig)
		}
	}
	<-p.done
	return nil
}

func exitError(err error) error {
	if err == nil {
		return errors.New("the server process exited")
	}
	return fmt.Errorf("the server process exited: %v", err)
}

var placeholder = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandAll resolves the ${env:NAME} placeholders of vals, adding the
// values to *secrets. Errors name the variable, never a value.
func (s *server) expandAll(ctx context.Context, vals map[string]string, secrets *[]string) (map[string]string, error) {
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		var ferr error
		out[k] = placeholder.ReplaceAllStringFunc(v, func(m string) string {
			name := placeholder.FindStringSubmatch(m)[1]
			if s.m.opts.Secrets == nil {
				ferr = fmt.Errorf("%s: no secrets provider for ${env:%s}", k, name)
				return ""
			}
			sec, err := s.m.opts.Secrets.Secret(ctx, name)
			if err != nil {
				ferr = fmt.Errorf("%s: secret %s: not available", k, name)
				return ""
			}
			*secrets = append(*secrets, sec)
			return sec
		})
		if ferr != nil {
			return nil, ferr
		}
		if strings.ContainsAny(out[k], "\r\n\x00") {
			return nil, fmt.Errorf("%s: the value holds a line break or NUL", k)
		}
	}
	return out, nil
}
