package vkcompact_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// documents are the documents whose relative links TestDocumentLinks
// follows: the README, docs/ and the documents they link to first.
func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ holds no .md file")
	}
	return append([]string{"README.md", "BENCHMARKS.md", "CHANGELOG.md"}, docs...)
}

// TestDocumentLinks checks that every relative link of README.md,
// BENCHMARKS.md, CHANGELOG.md and docs/*.md names a file of the
// repository, and that a link to a heading of a Markdown file (#anchor)
// names one of its headings as GitHub spells their anchors.
func TestDocumentLinks(t *testing.T) {
	for _, doc := range documents(t) {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(src)) {
			if msg := checkLink(doc, l.target); msg != "" {
				t.Errorf("%s:%d: link %q: %s", doc, l.line, l.target, msg)
			}
		}
	}
}

// TestDocumentLinksCheck holds the link check to links that are broken
// and links that are not.
func TestDocumentLinksCheck(t *testing.T) {
	for _, c := range []struct {
		doc, target string
		ok          bool
	}{
		{"README.md", "docs/cli.md", true},
		{"README.md", "docs/cli.md#bench", true},
		{"README.md", "docs/nothing.md", false},
		{"README.md", "docs/cli.md#no-such-heading", false},
		{"docs/cli.md", "../BENCHMARKS.md", true},
		{"docs/cli.md", "BENCHMARKS.md", false},
		{"docs/cli.md", "#what-every-command-shares", true},
		{"docs/cli.md", "#nowhere", false},
		{"README.md", "https://example.com/x", true},
	} {
		if got := checkLink(c.doc, c.target) == ""; got != c.ok {
			t.Errorf("checkLink(%q, %q) ok = %v, want %v", c.doc, c.target, got, c.ok)
		}
	}
	links := markdownLinks("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n    [d](w.md)\n![e](v.png \"title\")\n")
	var got []string
	for _, l := range links {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	if want := "1:x.md 6:v.png"; strings.Join(got, " ") != want {
		t.Errorf("markdownLinks found %q, want %q", strings.Join(got, " "), want)
	}
	if got := headingAnchors("# A `b` (c, 2^16)\n## A `b` (c, 2^16)\n```\n# not\n```\n"); !got["a-b-c-216"] || !got["a-b-c-216-1"] || got["not"] {
		t.Errorf("headingAnchors = %v", got)
	}
}

// link is a Markdown link's target and the line it is on.
type link struct {
	line   int
	target string
}

var (
	linkPattern = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the link targets of a Markdown document, outside
// code blocks (fenced, or indented by four spaces) and code spans.
func markdownLinks(src string) []link {
	var links []link
	fenced := false
	for i, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			links = append(links, link{i + 1, m[1]})
		}
	}
	return links
}

// checkLink returns what is wrong with a link to target in the document
// doc, or "" when nothing is: links with a scheme are not followed.
func checkLink(doc, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := doc
	if file != "" {
		path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Sprintf("no file %s", path)
	}
	if anchor == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if !headingAnchors(string(src))[anchor] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", path, anchor)
	}
	return ""
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown document: the heading's text in lower case, without the
// characters that are neither letters, digits, spaces, hyphens nor
// underscores, its spaces hyphens, and -1, -2... after repeats.
func headingAnchors(src string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		text, ok := strings.CutPrefix(line, "#")
		if fenced || !ok {
			continue
		}
		text = strings.TrimLeft(text, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
