// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perftune.h>

// perftune_go_exec runs before the Go runtime starts, in a process that
// Context.Command started as this very executable: it places itself on the
// NUMA nodes (as "perftune exec" does: what it sets is inherited across
// execve) and becomes the command. Go cannot run code between fork and
// exec, so the placement happens in the re-executed binary, the way runc's
// nsexec does it. argv[0] "perftune-go-exec" marks such a process (a program
// started any other way goes on to its main); it never reaches main.
__attribute__((constructor)) static void perftune_go_exec(int argc, char **argv)
{
	const char *spec = secure_getenv("PERFTUNE_GO_EXEC");
	struct perftune_ctx *ctx;
	char *nodes;
	int policy, r;

	if (argc < 1 || strcmp(argv[0], "perftune-go-exec"))
		return;
	if (!spec || argc < 2) { // Cmd.Env replaced: never run this program's main instead
		fputs("perftune exec: no PERFTUNE_GO_EXEC: append to Cmd.Env, do not replace it\n",
		      stderr);
		_exit(127);
	}
	spec = strdup(spec);
	unsetenv("PERFTUNE_GO_EXEC");
	if (!spec || !(nodes = strchr(spec, ':'))) {
		fputs("perftune exec: bad PERFTUNE_GO_EXEC\n", stderr);
		_exit(127);
	}
	*nodes++ = '\0';
	policy = atoi(spec);
	r = perftune_ctx_new(&ctx);
	if (r >= 0)
		r = perftune_numa_place_self(ctx, nodes, policy);
	if (r < 0) {
		fprintf(stderr, "perftune exec: %s\n",
			*perftune_ctx_last_error(ctx) ? perftune_ctx_last_error(ctx) : strerror(-r));
		_exit(127);
	}
	perftune_ctx_unref(ctx);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "perftune exec: %s: %s\n", argv[1], strerror(errno));
	_exit(127);
}
*/
import "C"

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"
)

// MemPolicy is the memory policy of a command placed on NUMA nodes
// ([Context.Command]).
type MemPolicy int

// Memory policies, as numactl's and "perftune exec"'s options.
const (
	MemLocal      MemPolicy = C.PERFTUNE_MEM_LOCAL      // the node the thread runs on (default)
	MemBind       MemPolicy = C.PERFTUNE_MEM_BIND       // only the given nodes (--membind)
	MemPreferred  MemPolicy = C.PERFTUNE_MEM_PREFERRED  // the first given node first (--preferred)
	MemInterleave MemPolicy = C.PERFTUNE_MEM_INTERLEAVE // round-robin over the nodes (--interleave)
)

// Command returns an [*exec.Cmd] that runs name with args on the CPUs of
// NUMA nodes (a node list, "0", "0-1") with memory policy policy, as
// "perftune exec --nodes NODES -- NAME ARGS..." does. The caller starts it
// and waits on it like any exec.Cmd (Stdout, Stdin, Dir, SysProcAttr can be
// set). Cmd.Env is set to this process's environment plus the placement:
// append to it rather than replacing it.
//
// The node list is checked here (errors wrap EINVAL for a bad list or
// policy, ENODEV for a node without CPUs, EOPNOTSUPP without NUMA); the
// placement itself happens in the started process, before it executes name:
// if it fails there, the command does not run, the process exits with
// status 127 and its standard error says why.
func (c *Context) Command(nodes string, policy MemPolicy, name string, args ...string) (*exec.Cmd, error) {
	if policy < MemLocal || policy > MemInterleave {
		return nil, &Error{Op: "exec", Key: nodes, Errno: syscall.EINVAL,
			Msg: fmt.Sprintf("memory policy %d is not one of local, bind, preferred, interleave", policy)}
	}
	if err := c.checkNodes(nodes); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("perftune exec: cannot find this executable: %w", err)
	}
	cmd := exec.Command(self)
	cmd.Args = append([]string{"perftune-go-exec", name}, args...)
	cmd.Env = append(os.Environ(), "PERFTUNE_GO_EXEC="+strconv.Itoa(int(policy))+":"+nodes)
	return cmd, nil
}

// checkNodes validates a node list the way proc.<pid>.numa_nodes does, in a
// dry run on this process: nothing is written, no journal is made. The
// placement is of a real process on this machine, whatever the context's
// root: libnuma reads the real /sys, so the check uses a context on "/".
func (c *Context) checkNodes(nodes string) error {
	if err := checkNUL("exec", nodes, nodes); err != nil {
		return err
	}
	c.mu.RLock()
	closed := c.p == nil
	c.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	var real *C.struct_perftune_ctx
	if rc := C.perftune_ctx_new(&real); rc < 0 {
		return newError("exec", nodes, rc, "")
	}
	defer C.perftune_ctx_unref(real)
	var tx *C.struct_perftune_tx
	_, err := callC("exec", nodes, real, func() C.int {
		name := C.CString("perftune-go-exec-check")
		defer C.free(unsafe.Pointer(name))
		return C.perftune_tx_new(real, name, C.PERFTUNE_TX_DRY_RUN, &tx)
	})
	if err != nil {
		return err
	}
	defer C.perftune_tx_unref(tx) // never committed: drops what was staged
	_, err = callC("exec", nodes, real, func() C.int {
		key := C.CString("proc." + strconv.Itoa(os.Getpid()) + ".numa_nodes")
		defer C.free(unsafe.Pointer(key))
		cn := C.CString(nodes)
		defer C.free(unsafe.Pointer(cn))
		return C.perftune_tx_set(tx, key, cn)
	})
	return err
}
