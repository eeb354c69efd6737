// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// CompareOptions is what "perftune compare" takes besides the command: the
// change (Settings or Profile with Vars) and how the experiment runs.
type CompareOptions struct {
	Settings       map[string]string // the change as KEY=VALUE pairs, or
	Profile        string            // the change as a profile (name or path)
	Vars           map[string]string // override the profile's [variables]
	Rounds         int               // rounds, each one run per state; 0: 10
	Warmup         int               // unmeasured runs of each state first; negative: none, 0: 1
	Metric         string            // a regex with one group: the last number it finds in the output; "": wall time
	HigherIsBetter bool              // with Metric: a larger number is better
	Plot           string            // draw both distributions to this .svg or .png (needs gnuplot)
	Log            string            // the command's stdout and stderr; "": ./perftune-compare.log
	Seed           uint64            // seed of the bootstrap and of the random order; 0: 1
	Order          string            // "abba" (default) or "random"
	Name           string            // the transaction's name; "": compare-PID
}

// CompareState is one state of an experiment, "baseline" or "tuned": the
// samples of the metric, their summary, and each measured run's seconds.
type CompareState struct {
	N       int       `json:"n"`
	Median  float64   `json:"median"`
	Q1      float64   `json:"q1"`
	Q3      float64   `json:"q3"`
	IQR     float64   `json:"iqr"`
	Mean    float64   `json:"mean"`
	CV      float64   `json:"cv"` // coefficient of variation: standard deviation / mean
	Samples []float64 `json:"samples"`
	WallS   []float64 `json:"wall_s"`
	UserS   []float64 `json:"user_s"`
	SysS    []float64 `json:"sys_s"`
}

// CompareResult is the report of "perftune compare --json".
type CompareResult struct {
	Baseline       CompareState `json:"baseline"`
	Tuned          CompareState `json:"tuned"`
	ChangePct      *float64     `json:"change_pct"` // change of the median in percent; nil if the baseline's is 0
	CI95           [2]*float64  `json:"ci95"`       // seeded bootstrap 95% interval of ChangePct
	PValue         float64      `json:"p_value"`    // two-sided Mann-Whitney U
	U              float64      `json:"u"`
	PMethod        string       `json:"p_method"` // "exact" or "asymptotic"
	Alpha          float64      `json:"alpha"`
	Verdict        string       `json:"verdict"` // "better", "worse" or "no difference"
	Metric         string       `json:"metric"`  // the regex, or "wall_time"
	HigherIsBetter bool         `json:"higher_is_better"`
	Rounds         int          `json:"rounds"`
	Warmup         int          `json:"warmup"`
	Order          string       `json:"order"`
	Seed           uint64       `json:"seed"`
	Transaction    string       `json:"transaction"`
	Log            string       `json:"log"`
	Plot           *string      `json:"plot"`
}

// ErrCompareStopped is wrapped by the error of an experiment that stopped
// after it had started (the command failed, a signal): the machine is
// restored; the error's message says in which round.
var ErrCompareStopped = errors.New("perftune compare stopped")

// PerftuneProgram returns the perftune program [Context.Compare] runs:
// $PERFTUNE_CLI, else perftune in $PATH or an sbin directory.
func PerftuneProgram() (string, error) {
	if cli := os.Getenv("PERFTUNE_CLI"); cli != "" {
		return cli, nil
	}
	if p, err := exec.LookPath("perftune"); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		if st, err := os.Stat(d + "/perftune"); err == nil && st.Mode()&0o111 != 0 {
			return d + "/perftune", nil
		}
	}
	return "", &Error{Op: "compare", Errno: syscall.ENOENT,
		Msg: "compare runs the perftune program, which is not installed (or set PERFTUNE_CLI)"}
}

// Compare does what "perftune compare" does: it runs name with args (no
// shell) Rounds times in the machine's state and as many times with the
// change applied around each tuned run only, always restored, and returns
// the report. The change is validated first through the library, as
// [Context.Begin] and [Context.Apply] do (an *Error, nothing changed); the
// experiment is the perftune program's ([PerftuneProgram]): what it refuses
// before changing anything is an *Error wrapping EINVAL, an experiment that
// stopped wraps [ErrCompareStopped].
func (c *Context) Compare(o CompareOptions, name string, args ...string) (*CompareResult, error) {
	if (o.Profile == "") == (len(o.Settings) == 0) {
		return nil, &Error{Op: "compare", Errno: syscall.EINVAL,
			Msg: "compare takes either Settings or Profile, not both or neither"}
	}
	settings, err := c.checkChange(o)
	if err != nil {
		return nil, err
	}
	cli, err := PerftuneProgram()
	if err != nil {
		return nil, err
	}
	argv := append([]string{"--root", c.Root(), "--journal-dir", c.JournalDir(), "compare", "--json"},
		o.args()...)
	argv = append(append(append(argv, settings...), "--", name), args...)
	cmd := exec.Command(cli, argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		msg := cliMessage(stderr.String())
		if exit.ExitCode() == 2 {
			return nil, &Error{Op: "compare", Errno: syscall.EINVAL, Msg: msg}
		}
		return nil, fmt.Errorf("%w: %s", ErrCompareStopped, msg)
	} else if err != nil {
		return nil, fmt.Errorf("perftune compare: %w", err)
	}
	var r CompareResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("perftune compare: its report: %w", err)
	}
	return &r, nil
}

// checkChange validates the change in a dry run; the KEY=VALUE arguments
func (c *Context) checkChange(o CompareOptions) ([]string, error) {
	const check = "perftune-go-compare-check"
	if o.Profile != "" {
		a, err := c.Apply(o.Profile, ApplyOptions{Name: check, Vars: o.Vars, Hold: true, DryRun: true})
		if err != nil {
			return nil, err
		}
		return nil, a.Tx.Close()
	}
	keys := make([]string, 0, len(o.Settings))
	for k := range o.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tx, err := c.Begin(check, TxOptions{Hold: true, DryRun: true})
	if err != nil {
		return nil, err
	}
	defer tx.Close()
	var kv []string
	for _, k := range keys {
		if _, err := tx.Set(k, o.Settings[k]); err != nil {
			return nil, err
		}
		kv = append(kv, k+"="+o.Settings[k])
	}
	if _, err := tx.Commit(); err != nil {
		return nil, err
	}
	return kv, nil
}

// args returns the options as perftune compare's command-line options
func (o CompareOptions) args() []string {
	var a []string
	opt := func(name, v string) {
		if v != "" {
			a = append(a, "--"+name, v)
		}
	}
	if o.Rounds != 0 {
		opt("rounds", strconv.Itoa(o.Rounds))
	}
	if o.Warmup < 0 {
		opt("warmup", "0")
	} else if o.Warmup > 0 {
		opt("warmup", strconv.Itoa(o.Warmup))
	}
	if o.Seed != 0 {
		opt("seed", strconv.FormatUint(o.Seed, 10))
	}
	opt("metric", o.Metric)
	opt("plot", o.Plot)
	opt("log", o.Log)
	opt("order", o.Order)
	opt("name", o.Name)
	opt("profile", o.Profile)
	if o.HigherIsBetter {
		a = append(a, "--higher-is-better")
	}
	vars := make([]string, 0, len(o.Vars))
	for k, v := range o.Vars {
		vars = append(vars, k+"="+v)
	}
	sort.Strings(vars)
	for _, v := range vars {
		a = append(a, "-v", v)
	}
	return a
}

// cliMessage returns perftune's own lines of its standard error ("perftune:
// ..."), without the prefix and the usage text, as one line
func cliMessage(stderr string) string {
	var msg []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "perftune: ") {
			msg = append(msg, strings.TrimPrefix(l, "perftune: "))
		}
	}
	if len(msg) == 0 {
		return "perftune compare failed"
	}
	return strings.Join(msg, "; ")
}
