// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// StatusMetrics returns [Context.Status] as Prometheus metrics in the text
// format of node_exporter's textfile collector, as "perftune status --format
// prometheus": perftune_tunable_in_force and perftune_tunable_drift per key
// and transaction, perftune_transaction_held/_orphaned/_committed,
// perftune_holds, perftune_orphaned_journals, perftune_keys{state} and
// perftune_transactions{state}, with HELP and TYPE lines and escaped labels.
func (c *Context) StatusMetrics() (string, error) {
	var text *C.char
	err := c.do("status metrics", "", func(p *C.struct_perftune_ctx) C.int {
		return C.perftune_status_metrics(p, 0, &text)
	})
	if err != nil {
		return "", err
	}
	defer C.free(unsafe.Pointer(text))
	return C.GoString(text), nil
}

// WriteStatusMetrics writes [Context.StatusMetrics] to path atomically, as
// "perftune status --format prometheus -o PATH": a temporary file in the same
// directory, renamed over path, so that the collector never reads half of
// it. Name it *.prom in the collector's directory.
func (c *Context) WriteStatusMetrics(path string) error {
	text, err := c.StatusMetrics()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, text)
}

// WriteFileAtomic writes text to path through a temporary file in the same
// directory, renamed over path (mode 0644), as "perftune ... -o PATH" does:
// a reader such as node_exporter's textfile collector never sees half of it,
// and nothing at path is ever written through. As the CLI (perftune(8),
// OUTPUT FILES), it refuses (EPERM) a symbolic link, a directory, a FIFO, a
// socket or a block device at path, and a file of another user in a sticky
// directory that others may write; a character device (/dev/null) is written
// in place.
func WriteFileAtomic(path, text string) error {
	inPlace, err := outputTarget(path)
	if err != nil {
		return err
	}
	if inPlace {
		return writeDevice(path, text)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".perftune-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// outputTarget checks what is at path before WriteFileAtomic replaces it:
// true for a character device, written in place; an error wrapping EPERM for
// what the CLI refuses.
func outputTarget(path string) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m := fi.Mode()
	if m&fs.ModeCharDevice != 0 {
		return true, nil
	}
	if !m.IsRegular() {
		return false, fmt.Errorf("%s: it is %s: perftune writes regular files only: %w",
			path, fileKind(m), syscall.EPERM)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return false, nil
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return false, err
	}
	ds, ok := di.Sys().(*syscall.Stat_t)
	if ok && di.Mode()&fs.ModeSticky != 0 && di.Mode().Perm()&0o022 != 0 && ds.Uid != st.Uid {
		return false, fmt.Errorf("%s: it belongs to uid %d, in a sticky directory that others "+
			"may write: perftune does not replace another user's file there: %w",
			path, st.Uid, syscall.EPERM)
	}
	return false, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// writeDevice writes text to the character device at path, opened without
// following a link, without blocking and checked after the open.
func writeDevice(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		return fmt.Errorf("%s: not a character device any more: %w", path, syscall.EPERM)
	}
	_, err = f.WriteString(text)
	return err
}
