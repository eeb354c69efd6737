// SPDX-License-Identifier: LGPL-2.1-or-later

// Command agent keeps a node tuned: it applies a perftune profile and holds
// it, re-verifies the values on a timer (drift: a key changed behind its
// back), writes Prometheus textfile metrics for node_exporter, and gives
// every value back when it is stopped (SIGTERM, SIGINT), like
// perftune@PROFILE.service does with the CLI, but from Go.
//
//	agent -profile throughput-performance -metrics /var/lib/prometheus/node-exporter/perftune.prom
//
// Exit status: 0 after a clean give-back, 1 when applying or giving back
// failed, 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	perftune "github.com/libperftune/perftune-go"
)

// vars collects repeated -var NAME=VALUE flags.
type vars map[string]string

func (v vars) String() string { return fmt.Sprint(map[string]string(v)) }

func (v vars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q is not NAME=VALUE", s)
	}
	v[name] = value
	return nil
}

type agent struct {
	ctx     *perftune.Context
	name    string
	metrics string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("agent: ")
	profile := flag.String("profile", "", "profile name or path (required)")
	name := flag.String("name", "", "transaction name (default: the profile's name)")
	interval := flag.Duration("interval", time.Minute, "how often to re-verify")
	metrics := flag.String("metrics", "", "textfile metrics to write (a *.prom file)")
	root := flag.String("root", "", "kernel files below this directory (tests)")
	journal := flag.String("journal-dir", "", "journal directory (default /run/perftune)")
	v := vars{}
	flag.Var(v, "var", "override a profile variable, NAME=VALUE (repeatable)")
	flag.Parse()
	if *profile == "" || flag.NArg() != 0 || *interval <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	var opts []perftune.Option
	if *root != "" {
		opts = append(opts, perftune.WithRoot(*root))
	}
	if *journal != "" {
		opts = append(opts, perftune.WithJournalDir(*journal))
	}
	ctx, err := perftune.Open(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	os.Exit(run(ctx, *profile, *name, v, *interval, *metrics))
}

func run(ctx *perftune.Context, profile, name string, v vars, every time.Duration, metrics string) int {
	// signals first: one arriving during the apply is taken after it
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)

	applied, err := ctx.Apply(profile, perftune.ApplyOptions{Name: name, Vars: v, Hold: true})
	if err != nil { // all or nothing: nothing stays changed
		log.Print(err)
		return 1
	}
	a := &agent{ctx: ctx, name: applied.Tx.Name(), metrics: metrics}
	for _, c := range applied.Changes {
		log.Printf("%s: %s -> %s", c.Key, c.Old, c.New)
	}
	for _, s := range applied.Skipped {
		log.Printf("skipped %s: %s", s.Option, s.SkipReason)
	}
	log.Printf("holding %s (%d written); re-verifying every %v", a.name, applied.Written, every)
	a.verify()

	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			a.verify()
		case s := <-sig:
			log.Printf("%v: giving every value back", s)
			return a.giveBack(applied.Tx)
		}
	}
}

// verify checks every value the transaction wrote (perftune verify NAME),
// logs what is not in force, and refreshes the metrics.
func (a *agent) verify() {
	checks, notInForce, err := a.ctx.VerifyTransaction(a.name)
	if err != nil {
		log.Printf("verify: %v", err)
		return
	}
	for _, c := range checks {
		if c.Status != perftune.InForce {
			log.Printf("drift: %s is %q, %s wrote %q (%s)", c.Key, c.Current, a.name,
				c.Expected, c.Status)
		}
	}
	if notInForce == 0 {
		log.Printf("verified %s: every value in force", a.name)
	}
	a.writeMetrics()
}

func (a *agent) writeMetrics() {
	if a.metrics == "" {
		return
	}
	if err := a.ctx.WriteStatusMetrics(a.metrics); err != nil {
		log.Printf("metrics: %v", err)
	}
}

// giveBack rolls the held transaction back (every key to its original, in
// reverse order) and writes the metrics once more, now without it.
func (a *agent) giveBack(tx *perftune.Tx) int {
	err := tx.Rollback()
	for i := 0; err != nil && i < 3; i++ { // the journal is kept: try again
		var perr *perftune.Error
		if errors.As(err, &perr) {
			log.Printf("rollback: %v (errno %d), retrying", perr, int(perr.Errno))
		}
		time.Sleep(time.Second)
		err = tx.Rollback()
	}
	a.writeMetrics()
	if err != nil {
		log.Printf("rollback failed: %v; 'perftune restore %s' gives it back", err, a.name)
		return 1
	}
	log.Printf("gave back every value of %s", a.name)
	return 0
}
