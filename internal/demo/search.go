package demo

import (
	"bufio"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed docs/*.md
var docsFS embed.FS

// doc is one bundled document, split into lines.
type doc struct {
	name  string
	lines []string
}

// bundled is parsed once from the embedded files; it is read-only.
var bundled = mustLoadDocs()

func mustLoadDocs() []doc {
	entries, err := fs.ReadDir(docsFS, "docs")
	if err != nil {
		panic("demo: " + err.Error())
	}
	var out []doc
	for _, e := range entries {
		f, err := docsFS.Open("docs/" + e.Name())
		if err != nil {
			panic("demo: " + err.Error())
		}
		d := doc{name: e.Name()}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			d.lines = append(d.lines, sc.Text())
		}
		f.Close()
		out = append(out, d)
	}
	return out
}

// DocNames returns the names of the bundled documents search_docs searches.
func DocNames() []string {
	names := make([]string, len(bundled))
	for i, d := range bundled {
		names[i] = d.name
	}
	return names
}

// SearchIn is the input of search_docs.
type SearchIn struct {
	Query string `json:"query" jsonschema:"words to look for (case-insensitive)"`
	Limit int    `json:"limit,omitzero" jsonschema:"most hits to return, 1 to 50; default 5"`
}

// SearchOut is the result of search_docs.
type SearchOut struct {
	Hits []Hit `json:"hits"`
}

// Hit is one matching line.
type Hit struct {
	Doc  string `json:"doc"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Score is how many distinct query words the line contains.
	Score int `json:"score"`
}

func searchDocs(ctx context.Context, in SearchIn) (SearchOut, error) {
	terms := strings.Fields(strings.ToLower(in.Query))
	if len(terms) == 0 {
		return SearchOut{}, errors.New("query must contain at least one word")
	}
	if len(terms) > 32 {
		terms = terms[:32]
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	limit := in.Limit
	switch {
	case limit == 0:
		limit = 5
	case limit < 1 || limit > 50:
		return SearchOut{}, fmt.Errorf("limit must be 1 to 50, got %d", limit)
	}
	hits := []Hit{}
	for _, d := range bundled {
		if err := ctx.Err(); err != nil {
			return SearchOut{}, err
		}
		for i, line := range d.lines {
			lower := strings.ToLower(line)
			score := 0
			for _, t := range terms {
				if strings.Contains(lower, t) {
					score++
				}
			}
			if score > 0 {
				hits = append(hits, Hit{Doc: d.name, Line: i + 1, Text: strings.TrimSpace(line), Score: score})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return SearchOut{Hits: hits}, nil
}
