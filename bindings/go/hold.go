// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

import (
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"syscall"
)

// HoldOptions say what [Context.Hold] holds: a profile (with its variables)
// or settings, one of the two, and under which name.
type HoldOptions struct {
	Name     string            // transaction name; "" is "hold-PID-N", new for each Hold
	Profile  string            // a profile name or path, or
	Settings map[string]string // the change as KEY=VALUE pairs
	Vars     map[string]string // override the profile's [variables]
}

var holdSeq atomic.Uint64

// Hold does for Go code what "perftune run" does around its command: it
// commits a profile or settings as a holding transaction, PM QoS requests
// included (a profile's force_latency too), and returns it. The change is in
// force until Close of the returned Tx, which gives everything back:
//
//	held, err := ctx.Hold(perftune.HoldOptions{Profile: "latency-performance"})
//	if err != nil { ... }
//	defer held.Close()
//
// Holds nest: one taken while another is open journals that one's values as
// its originals. On error nothing stays changed and no Tx is returned; errors
// are those of [Context.Apply] and [Tx.Commit], or EINVAL (neither or both of
// Profile and Settings, Vars without a Profile). If giving the change back
// fails, Close says so and keeps the journal ([Context.Restore] of its name).
func (c *Context) Hold(o HoldOptions) (*Tx, error) {
	if (o.Profile == "") == (len(o.Settings) == 0) || (o.Profile == "" && len(o.Vars) != 0) {
		return nil, &Error{Op: "hold", Errno: syscall.EINVAL,
			Msg: "hold takes either Settings or a Profile (with Vars), not both or neither"}
	}
	name := o.Name
	if name == "" {
		name = fmt.Sprintf("hold-%d-%d", os.Getpid(), holdSeq.Add(1))
	}
	if o.Profile != "" {
		a, err := c.Apply(o.Profile, ApplyOptions{Name: name, Vars: o.Vars, Hold: true})
		if err != nil {
			return nil, err
		}
		return a.Tx, nil
	}
	tx, err := c.Begin(name, TxOptions{Hold: true})
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(o.Settings))
	for k := range o.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same bad settings, run after run
	for _, k := range keys {
		if _, err = tx.Set(k, o.Settings[k]); err != nil {
			break
		}
	}
	if err == nil {
		_, err = tx.Commit()
	}
	if err != nil {
		tx.Close() // staged values dropped; a failed commit gave back what it wrote
		return nil, err
	}
	return tx, nil
}
