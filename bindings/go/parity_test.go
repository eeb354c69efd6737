// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

// parity.tsv: every CLI command (read from `perftune --help`, the CLI's own
// command table) has a row, and every Go call a row names exists in this
// package: a function, a constant or variable, a type, a method or a field.
// bindings/python/tests/test_parity.py checks the Python column. The table is
// in the module's directory: the Go column is checked wherever the module is;
// the CLI's commands only where $PERFTUNE_CLI names the program (meson's go
// suite sets it).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

type parityRow struct{ cli, py, golang string }

func parityRows(t *testing.T) []parityRow {
	t.Helper()
	b, err := os.ReadFile("parity.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []parityRow
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 3 || strings.TrimSpace(c[0]) == "" || strings.TrimSpace(c[1]) == "" ||
			strings.TrimSpace(c[2]) == "" {
			t.Fatalf("parity.tsv: bad row %q (three non-empty tab-separated cells)", line)
		}
		rows = append(rows, parityRow{c[0], c[1], c[2]})
	}
	return rows
}

func cliCommands(t *testing.T) []string {
	t.Helper()
	cli := os.Getenv("PERFTUNE_CLI")
	if cli == "" {
		t.Skip("PERFTUNE_CLI is not set (meson test --suite go sets it): cannot read the CLI's commands")
	}
	out, err := exec.Command(cli, "--help").Output()
	if err != nil {
		t.Fatalf("%s --help: %v", cli, err)
	}
	_, block, _ := strings.Cut(string(out), "Commands:\n")
	block, _, _ = strings.Cut(block, "\n\n")
	var cmds []string
	for _, l := range strings.Split(block, "\n") {
		if regexp.MustCompile(`^  [a-z]`).MatchString(l) {
			cmds = append(cmds, strings.Fields(l)[0])
		}
	}
	if len(cmds) < 9 {
		t.Fatalf("could not read the commands from perftune --help:\n%s", out)
	}
	return cmds
}

// goNames returns every exported name of the package: "Open", "MemBind",
// "Context", "Context.Apply" (method), "TxOptions.Hold" (field).
func goNames(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range pkgs["perftune"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				names[recv.(*ast.Ident).Name+"."+d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									names[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	return names
}

func TestParityEveryCommandHasARow(t *testing.T) {
	rows := parityRows(t)
	covered := map[string]bool{}
	for _, r := range rows {
		covered[strings.Fields(r.cli)[0]] = true
	}
	cmds := cliCommands(t)
	isCmd := map[string]bool{}
	for _, c := range cmds {
		isCmd[c] = true
		if !covered[c] {
			t.Errorf("CLI command %q has no row in bindings/parity.tsv", c)
		}
	}
	for _, r := range rows {
		if c := strings.Fields(r.cli)[0]; !strings.HasPrefix(c, "-") && !isCmd[c] {
			t.Errorf("parity.tsv row %q: the CLI has no command %q", r.cli, c)
		}
	}
}

func TestParityGoCallsExist(t *testing.T) {
	names := goNames(t)
	for _, must := range []string{"Open", "Context.Apply", "TxOptions.Hold", "MemBind"} {
		if !names[must] { // the scan itself works
			t.Fatalf("package scan misses %s", must)
		}
	}
	if names["Context.NoSuchMethod"] {
		t.Fatal("package scan finds what is not there")
	}
	for _, r := range parityRows(t) {
		for _, call := range strings.Split(r.golang, ",") {
			if call = strings.TrimSpace(call); !names[call] {
				t.Errorf("parity.tsv row %q: Go %q does not exist in package perftune", r.cli, call)
			}
		}
	}
}
