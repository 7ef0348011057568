package docsection

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository's front page links into docs/ for everything it no longer
// says itself, so a link that leads nowhere loses a reader the facts moved
// there: every relative link of every Markdown file must name a file that
// exists and, with a #fragment, a heading of that file.
func TestEveryDocLinkResolves(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := map[string]string{}
	for _, pattern := range []string{"*.md", "docs/*.md"} {
		names, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			raw, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, name)
			docs[filepath.ToSlash(rel)] = string(raw)
		}
	}
	if _, ok := docs["README.md"]; !ok {
		t.Fatalf("no README.md under %s", root)
	}
	exists := func(p string) bool {
		if _, ok := docs[p]; ok {
			return true
		}
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	for _, broken := range brokenLinks(docs, exists) {
		t.Error(broken)
	}
}

// The checker itself finds each kind of broken link, and passes what
// GitHub resolves, on made-up documents.
func TestTheLinkCheckerFindsEachKindOfBreak(t *testing.T) {
	docs := map[string]string{
		"README.md": "[ok](docs/a.md) [ok](docs/a.md#the-store-internalstore) [ok](#top-part) ![img](docs/img/x.png)\n" +
			"[gone](docs/missing.md) [bad anchor](docs/a.md#nowhere) [bad self](#nowhere-here) [web](https://example.org/x)\n" +
			"`[not a link](docs/missing2.md)`\n```\n[fenced](docs/missing3.md)\n```\n# Top part\n",
		"docs/a.md": "# The store (`internal/store`)\n## Twice\n## Twice\n[up](../README.md#top-part) [second](#twice-1)\n",
	}
	exists := func(p string) bool { _, ok := docs[p]; return ok || p == "docs/img/x.png" }
	got := brokenLinks(docs, exists)
	want := []string{
		"README.md: docs/a.md#nowhere: no heading with that anchor",
		"README.md: docs/missing.md: no such file",
		"README.md: #nowhere-here: no heading with that anchor",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("broken links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	fence    = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// brokenLinks lists each relative link of docs (path → Markdown, paths
// relative to the repository's root) that names no file (exists says
// whether one is there) or no heading of the Markdown file it names.
func brokenLinks(docs map[string]string, exists func(string) bool) []string {
	anchors := map[string]map[string]bool{}
	for name, text := range docs {
		anchors[name] = headingAnchors(strings.ReplaceAll(withoutFences(text), "`", ""))
	}
	var broken []string
	for name, text := range docs {
		for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(withoutFences(text), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			resolved := name
			if file != "" {
				resolved = path.Join(path.Dir(name), file)
				if !exists(resolved) {
					broken = append(broken, name+": "+target+": no such file")
					continue
				}
			}
			if fragment != "" && strings.HasSuffix(resolved, ".md") && !anchors[resolved][fragment] {
				broken = append(broken, name+": "+target+": no heading with that anchor")
			}
		}
	}
	return broken
}

// withoutFences is text without its fenced blocks, where brackets and
// headings are not Markdown's.
func withoutFences(text string) string { return fence.ReplaceAllString(text, "") }

// headingAnchors are the anchors GitHub gives the headings of a document
// (its code spans' backticks already dropped): lower case, punctuation
// dropped, spaces as hyphens, and a repeated one numbered from -1.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			anchors[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	}
	return anchors
}
