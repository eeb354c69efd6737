// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		if err == nil { // a fixed disk, for the profiles' [disk]
			err = os.WriteFile(filepath.Join(root, "sys/block/sda/removable"), []byte("0\n"), 0o644)
		}
		if err == nil { // a profile, found by path
			p := filepath.Join(root, "profiles/mydb")
			if err = os.MkdirAll(p, 0o755); err == nil {
				err = os.WriteFile(filepath.Join(p, "tuned.conf"), []byte(
					"[main]\nsummary=A database server\n[variables]\nsched=deadline\n"+
						"[disk]\nelevator=${sched}\n[script]\nscript=tune.sh\n"), 0o644)
			}
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

// Apply a profile as "perftune apply" does: dry-run it first (old -> new,
// and what is skipped with the reason), then apply it for real.
func ExampleContext_Apply() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	ctx, err := perftune.Open(perftune.WithRoot(root),
		perftune.WithJournalDir(filepath.Join(root, "journal")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	profile := filepath.Join(root, "profiles/mydb") // or a name on the search path

	dry, err := ctx.Apply(profile, perftune.ApplyOptions{DryRun: true,
		Vars: map[string]string{"sched": "kyber"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	dry.Tx.Close()
	for _, c := range dry.Changes {
		fmt.Printf("would set %s: %s -> %s\n", c.Key, c.Old, c.New)
	}
	for _, s := range dry.Skipped {
		fmt.Printf("skipped %s: %s\n", s.Option, s.SkipReason)
	}

	applied, err := ctx.Apply(profile, perftune.ApplyOptions{Name: "mydb"})
	if err != nil {
		fmt.Println(err)
		return
	}
	applied.Tx.Close() // stays in force until ctx.Restore("mydb")
	v, _ := ctx.Get("block.sda.scheduler")
	fmt.Println("now:", v)
	rules, _ := ctx.Export("mydb", perftune.ExportUdev)
	fmt.Println(strings.Contains(rules, `ATTR{queue/scheduler}="mq-deadline"`))
	n, _ := ctx.Restore("mydb")
	fmt.Println("restored", n)
	// Output:
	// would set block.sda.scheduler: none -> kyber
	// skipped [script] script: runs a program: a profile never executes anything
	// now: mq-deadline
	// true
	// restored 1
}

// The profiles on the search path ($PERFTUNE_PROFILE_PATH, /etc/tuned, ...).
func ExampleContext_Profiles() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	os.Setenv("PERFTUNE_PROFILE_PATH", filepath.Join(root, "profiles"))
	defer os.Unsetenv("PERFTUNE_PROFILE_PATH")
	ctx, err := perftune.Open(perftune.WithRoot(root))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	ps, _ := ctx.Profiles()
	for _, p := range ps {
		fmt.Printf("%s: %s\n", p.Name, p.Summary)
	}
	// Output: mydb: A database server
}

// Run a command on the CPUs of NUMA node 0, its memory bound there, as
// "perftune exec --nodes 0 --membind -- CMD" does.
func ExampleContext_Command() {
	ctx, err := perftune.Open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	cmd, err := ctx.Command("0", perftune.MemBind, "echo", "placed")
	if err != nil {
		fmt.Println(err) // errors.Is(err, syscall.ENODEV): no such node
		return
	}
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
	}
	// Output: placed
}

// Measure a Go func with and without a change, in this process: the change is
// in force exactly while the func runs in a tuned run, and given back after
// each one. Here the measure reads the tunable itself, on a fake tree.
func ExampleContext_CompareFunc() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	swappiness := filepath.Join(root, "proc/sys/vm/swappiness")
	if err := os.MkdirAll(filepath.Dir(swappiness), 0o755); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(swappiness, []byte("60\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	ctx, err := perftune.Open(perftune.WithRoot(root),
		perftune.WithJournalDir(filepath.Join(root, "journal")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	r, err := ctx.CompareFunc(perftune.CompareOptions{
		Settings: map[string]string{"sysctl.vm.swappiness": "10"}, Rounds: 5,
	}, func() (float64, error) {
		v, err := ctx.Get("sysctl.vm.swappiness")
		if v == "10" {
			return 1, err // a workload twice as fast with the change
		}
		return 2, err
	})
	if err != nil {
		fmt.Println(err) // the func's error, or an *Error
		return
	}
	fmt.Println(r.Verdict, *r.ChangePct, r.Baseline.N, r.Tuned.N)
	// Output: better -50 5 5
}
