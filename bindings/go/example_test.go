// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	perftune "github.com/libperftune/perftune-go"
)

// benchmarkTuned runs work with the disk on mq-deadline and gives everything
// back when it returns: "defer tx.Rollback()" restores a committed
// transaction, and is harmless if Set or Commit failed.
func benchmarkTuned(ctx *perftune.Context, work func()) error {
	tx, err := ctx.Begin("bench", perftune.TxOptions{})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Set("block.sda.scheduler", "deadline"); err != nil {
		return err // nothing staged, nothing written
	}
	if _, err := tx.Commit(); err != nil {
		return err // all or nothing: whatever was written is already given back
	}
	work()
	return nil
}

// exampleRoot makes a fake kernel tree, so that the examples run anywhere
// without root. On a real machine, call perftune.Open() without WithRoot.
func exampleRoot() string {
	root, err := os.MkdirTemp("", "perftune-example")
	if err == nil {
		q := filepath.Join(root, "sys/block/sda/queue")
		if err = os.MkdirAll(q, 0o755); err == nil {
			err = os.WriteFile(filepath.Join(q, "scheduler"),
				[]byte("[none] mq-deadline kyber bfq\n"), 0o644)
		}
	}
	if err != nil {
		panic(err)
	}
	return root
}

// A transaction that lasts as long as a function: defer tx.Rollback().
func Example() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	ctx, err := perftune.Open(perftune.WithRoot(root),
		perftune.WithJournalDir(filepath.Join(root, "journal")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()

	err = benchmarkTuned(ctx, func() {
		v, _ := ctx.Get("block.sda.scheduler")
		fmt.Println("during:", v)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := ctx.Get("block.sda.scheduler")
	fmt.Println("after:", v)
	// Output:
	// during: mq-deadline
	// after: none
}

// Errors carry the library's message and wrap a syscall.Errno.
func ExampleError() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	ctx, err := perftune.Open(perftune.WithRoot(root))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()

	_, err = ctx.Get("block.sdx.scheduler")
	if errors.Is(err, syscall.ENODEV) {
		fmt.Println("no such disk:", err)
	}
	var perr *perftune.Error
	if errors.As(err, &perr) {
		fmt.Println("errno:", int(perr.Errno))
	}
	// Output:
	// no such disk: block.sdx.scheduler: no such block device
	// errno: 19
}

// Describe tells what a tunable accepts.
func ExampleContext_Describe() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	ctx, err := perftune.Open(perftune.WithRoot(root))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()

	d, err := ctx.Describe("block.sda.scheduler")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Value, d.Choices, d.Writable)
	// Output: none [none mq-deadline kyber bfq] true
}
