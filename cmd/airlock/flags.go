package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
)

// flagSet is a command's flags: those bound to configuration keys and the
// command's own.
type flagSet struct {
	*flag.FlagSet
	keys       map[string]string // flag name → configuration key
	configFile *string
	// edit, when set, adds what the command's own flags say to the
	// loaded configuration before it is checked.
	edit func(*config.Config)
}

// newFlagSet returns the flags of `airlock name`; synopsis (the arguments
// after the command) and about (what it does) open its -h text.
func newFlagSet(name, synopsis, about string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("airlock "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flagSet{FlagSet: fs, keys: map[string]string{}}
	f.configFile = fs.String("config", "", "YAML configuration `FILE` (default: $AIRLOCK_CONFIG)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: airlock %s %s\n\n%s\n\nflags:\n", name, synopsis, about)
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nFlags that set a configuration key override the file and are overridden\nby the key's AIRLOCK_* variable (airlock config keys). See docs/cli.md.\n")
	}
	return f
}

// defaults are the effective defaults of every configuration key, shown in
// the -h text of the flags that set them.
var defaults = config.Default().Effective()

// key declares a flag that sets the configuration key.
func (f *flagSet) key(name, key, usage string) {
	if d, ok := defaults.Value(key); ok && d != "" {
		usage += " (config " + key + ", default " + d + ")"
	} else {
		usage += " (config " + key + ")"
	}
	f.String(name, "", usage)
	f.keys[name] = key
}

// parse parses args, allowing flags after positional arguments
// (`airlock run x.js --json`), and returns the positional arguments.
func (f *flagSet) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &exitError{code: exitOK}
			}
			return nil, &exitError{code: exitUsage}
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// load builds the configuration: the file, then the flags given, then the
// environment.
func (f *flagSet) load(env []string) (*config.Config, error) {
	// The tools are checked with the rest, so that one load reports every
	// problem of the file.
	src := config.Sources{File: *f.configFile, Env: env, Edit: f.edit, Check: assemble.Check}
	if src.File == "" {
		src.File = lookup(env, "AIRLOCK_CONFIG")
	}
	f.Visit(func(fl *flag.Flag) {
		if key, ok := f.keys[fl.Name]; ok {
			src.Flags = append(src.Flags, config.Flag{Name: fl.Name, Key: key, Value: fl.Value.String()})
		}
	})
	cfg, err := config.Load(src)
	if err != nil {
		return nil, fail(exitUsage, "configuration:\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return cfg, nil
}

func lookup(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

func noArgs(cmd string, pos []string) error {
	if len(pos) > 0 {
		return fail(exitUsage, "%s takes no arguments (got %q)", cmd, pos)
	}
	return nil
}

// storeFlags declares the blob-store flags shared by run and serve. S3
// credentials have no flags on purpose: a command line is visible to every
// user of the machine (ps); set AIRLOCK_S3_ACCESS_KEY/AIRLOCK_S3_SECRET_KEY or
// the config file instead.
func storeFlags(fs *flagSet) {
	fs.key("store", "store.kind", "blob `store`: fs (default) or s3")
	fs.key("store-dir", "store.dir", "the fs store's `directory` (default: the user cache dir)")
	fs.key("s3-endpoint", "store.s3.endpoint", "S3/MinIO `host:port` for --store s3")
	fs.key("s3-bucket", "store.s3.bucket", "S3 `bucket` for --store s3")
	fs.key("s3-region", "store.s3.region", "S3 `region`")
	fs.key("s3-tls", "store.s3.use_tls", "use TLS to reach S3 (`true` or false)")
}
