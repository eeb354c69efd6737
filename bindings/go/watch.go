// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <errno.h>
#include <poll.h>
#include <perftune.h>

// until @fd is readable (1) or @stop is (0); -errno
static int pt_go_wait(int fd, int stop)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = stop, .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return 0;
		if (p[0].revents)
			return 1;
	}
}
*/
import "C"

import (
	"context"
	"os"
	"syscall"
)

// Watch makes a committed holding Tx ([TxOptions].Hold) follow devices added
// while it is held: it returns a file descriptor that becomes readable when
// block or network devices come or go; call [Tx.Dispatch] then. What selects
// a device is what selected the commit's: keys given with a glob
// ("block.sd*.scheduler") and a staged profile's rules (devices= globs and !
// exclusions, devices_udev_regex=, rotational=, the default disk set). The
// descriptor belongs to the Tx: do not close it. On the machine the events
// are libudev's monitor; below another root ([WithRoot]), lines
// "ACTION SUBSYSTEM NAME" written to the root's FIFO run/perftune-uevents.
// Errors wrap EINVAL (not a holding Tx), EALREADY (not committed, or rolled
// back), EOPNOTSUPP (libudev is not installed).
func (t *Tx) Watch() (int, error) {
	return t.call("watch", t.name, func(p *C.struct_perftune_tx) C.int {
		return C.perftune_tx_watch(p)
	})
}

// Dispatch handles every event pending on [Tx.Watch]'s descriptor without
// waiting: a device added that the rules select gets its settings in one
// more commit under the Tx's name (journaled, read back, given back with the
// rest: [ItemHotplug] in [Context.Status]); one that refuses is given back
// alone and listed with [ItemRefused]. It returns the number of devices tuned.
func (t *Tx) Dispatch() (int, error) {
	return t.call("dispatch", t.name, func(p *C.struct_perftune_tx) C.int {
		return C.perftune_tx_dispatch(p)
	})
}

// Follow watches ([Tx.Watch]) and dispatches ([Tx.Dispatch]) until ctx is
// done, for a goroutine beside the work a hold is for:
//
//	go tx.Follow(ctx) // devices added while held get the settings too
//
// It returns nil when ctx is done, or the first error of Watch, Dispatch or
// the wait.
func (t *Tx) Follow(ctx context.Context) error {
	fd, err := t.Watch()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe() // ctx.Done() wakes the wait through it
	if err != nil {
		return err
	}
	defer r.Close()
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped:
		}
		w.Close()
	}()
	for {
		rc := C.pt_go_wait(C.int(fd), C.int(r.Fd()))
		if rc < 0 {
			return &Error{Op: "follow", Key: t.name, Errno: syscall.Errno(-rc),
				Msg: syscall.Errno(-rc).Error()}
		}
		if rc == 0 {
			return nil
		}
		if _, err := t.Dispatch(); err != nil {
			return err
		}
	}
}
