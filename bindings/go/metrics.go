// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"os"
	"path/filepath"
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
// a reader such as node_exporter's textfile collector never sees half of it.
func WriteFileAtomic(path, text string) error {
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
