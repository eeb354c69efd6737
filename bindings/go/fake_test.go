// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// fakeTree is a small kernel tree below a temporary root. On a fake tree a
// plain file does not emulate bracket selection: writing "mq-deadline" to
// the scheduler file makes it read back "mq-deadline", which is all the
// binding needs.
type fakeTree struct {
	root, journal string
}

var fakeFiles = map[string]string{
	"sys/block/fake0/queue/scheduler":            "[none] mq-deadline kyber bfq\n",
	"sys/block/fake0/queue/read_ahead_kb":        "128\n",
	"proc/sys/vm/swappiness":                     "60\n",
	"sys/kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
}

func newFakeTree(t *testing.T) *fakeTree {
	t.Helper()
	base := t.TempDir()
	ft := &fakeTree{root: filepath.Join(base, "root"), journal: filepath.Join(base, "journal")}
	for rel, content := range fakeFiles {
		ft.write(t, rel, content)
	}
	if err := os.MkdirAll(filepath.Join(ft.root, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ft
}

func (ft *fakeTree) path(rel string) string { return filepath.Join(ft.root, rel) }

func (ft *fakeTree) write(t *testing.T, rel, content string) {
	t.Helper()
	p := ft.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns the file's content without the trailing newline.
func (ft *fakeTree) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(ft.path(rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// open returns a Context on the tree, closed at the end of the test.
func (ft *fakeTree) open(t *testing.T) *perftune.Context {
	t.Helper()
	c, err := perftune.Open(perftune.WithRoot(ft.root), perftune.WithJournalDir(ft.journal))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// journals lists the journal files left in the journal directory.
func (ft *fakeTree) journals(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(ft.journal, "*.journal"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}
