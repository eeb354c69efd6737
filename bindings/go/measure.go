// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

// The measure callback of an experiment, exported to C. A file with //export
// may only declare C in its preamble: the C helper that hands this function
// to perftune_experiment_run() is in compare_func.go.

/*
#include <perftune.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// perftuneGoMeasure is the perftune_measure_fn of [Context.CompareFunc]:
// userdata is a cgo.Handle of its *measure (no Go pointer is kept by C).
//
//export perftuneGoMeasure
func perftuneGoMeasure(run *C.struct_perftune_run, userdata unsafe.Pointer, value *C.double) C.int {
	m := cgo.Handle(uintptr(userdata)).Value().(*measure)
	v, rc := m.call(runInfo{
		tuned: C.perftune_run_state(run) == C.PERFTUNE_TUNED,
		round: int(C.perftune_run_round(run)),
		label: C.GoString(C.perftune_run_label(run)),
	})
	*value = C.double(v)
	return C.int(rc)
}
