// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

// WriteFileAtomic refuses what the CLI's -o refuses (issue 33 H1): nothing is
// written through a symbolic link or into a FIFO, and the link stays.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

func TestWriteFileAtomicRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.prom")
	fifo := filepath.Join(dir, "fifo.prom")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{link: "a symbolic link", fifo: "a FIFO"} {
		err := perftune.WriteFileAtomic(path, "x 1\n")
		if !errors.Is(err, syscall.EPERM) || !strings.Contains(err.Error(), "it is "+kind) {
			t.Errorf("%s: %v, want EPERM naming %s", path, err, kind)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if b, _ := os.ReadFile(victim); string(b) != "victim\n" {
		t.Errorf("written through the link: %q", b)
	}
	// a regular file of ours is replaced, and nothing is left beside it
	out := filepath.Join(dir, "m.prom")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := perftune.WriteFileAtomic(out, "new 1\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "new 1\n" {
		t.Errorf("m.prom: %q", b)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*perftune-*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// Context.WriteFile is the library's perftune_output_write_file: a directory
// at the path is refused naming it, a path is not taken below the context's
// root, and a new file gets mode 0644.
func TestContextWriteFile(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	dir := t.TempDir()
	err := c.WriteFile(dir, "x\n")
	if !errors.Is(err, syscall.EPERM) || !strings.HasPrefix(err.Error(), dir+": it is a directory") {
		t.Errorf("%s: %v, want EPERM naming it", dir, err)
	}
	out := filepath.Join(dir, "new.txt")
	if err := c.WriteFile(out, "new\n"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: %v, %v; want mode 0644", out, fi, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "new\n" {
		t.Errorf("%s: %q", out, b)
	}
}
