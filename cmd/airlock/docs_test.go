package main_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	// usageCommand matches a command line of `airlock help`.
	usageCommand = regexp.MustCompile(`(?m)^  airlock ([a-z]+)`)
	// helpFlag matches a flag line of `airlock COMMAND -h`.
	helpFlag = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
)

// TestDocsCoverTheCLI keeps docs/cli.md in step with the binary: every
// command of the usage text has a section, and every flag a command defines
// (as its -h lists them) is documented, as "`--name …`", in that command's
// section or in Configuration (the flags every command takes). `config
// print` takes the flags of run and serve, so their sections count for it.
func TestDocsCoverTheCLI(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	sections := map[string]string{} // title → text
	for _, s := range strings.Split(string(b), "\n## ")[1:] {
		title, text, _ := strings.Cut(s, "\n")
		sections[title] = text
	}
	section := func(t *testing.T, cmd string) string {
		t.Helper()
		for title, text := range sections {
			if strings.Contains(title, "`airlock "+cmd+" ") || strings.Contains(title, "`airlock "+cmd+"`") {
				return text
			}
		}
		t.Fatalf("docs/cli.md has no section titled `airlock %s …`", cmd)
		return ""
	}

	help := airlock(t, "", nil, "help")
	require.Equal(t, 0, help.code, help.stderr)
	var commands []string
	for _, m := range usageCommand.FindAllStringSubmatch(help.stdout, -1) {
		commands = append(commands, m[1])
	}
	require.Contains(t, commands, "run", "the usage lists the commands:\n%s", help.stdout)
	require.Contains(t, commands, "version")

	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			doc := section(t, cmd) + sections["Configuration"]
			invocations := [][]string{{cmd, "-h"}}
			switch cmd {
			case "version":
				return // no flags; its section is enough
			case "config":
				invocations = [][]string{{"config", "print", "-h"}, {"config", "keys", "-h"}}
				doc += section(t, "run") + section(t, "serve")
			}
			for _, args := range invocations {
				res := airlock(t, "", nil, args...)
				require.Equal(t, 0, res.code, "airlock %v: %s", args, res.stderr)
				flags := helpFlag.FindAllStringSubmatch(res.stderr, -1)
				require.NotEmpty(t, flags, "airlock %v lists its flags:\n%s", args, res.stderr)
				for _, f := range flags {
					name := f[1]
					require.Regexp(t, "`--"+regexp.QuoteMeta(name)+"[ `]", doc,
						"docs/cli.md documents the flag --%s of `airlock %s`", name, strings.Join(args[:len(args)-1], " "))
				}
			}
		})
	}
}
