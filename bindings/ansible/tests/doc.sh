#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ansible suite, documentation part (no root, no kernel files):
# ansible-doc renders both modules from the collection perftune.perftune,
# every documented option is in the argument spec and back, the EXAMPLES are
# YAML calling modules that exist, RETURN is there; ansible-galaxy builds the
# collection; the README's example playbook passes --syntax-check.
# Exit 77 (meson: SKIP) when ansible-core is missing, 1 under
# PERFTUNE_REQUIRE_ALL=1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

need_tools ansible-doc ansible-galaxy ansible-playbook
TMP=$(mktemp -d /tmp/perftune-ansible-doc.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
collection_tree "$TMP"
APY=$(ansible_python)
echo "ansible-doc test: $(ansible --version | sed -n 1p) on $APY"

echo "== ansible-doc"
for m in tunables profile_facts verify; do
	# stderr too: ansible-doc reports a broken DOCUMENTATION as a warning, exit 0
	ansible-doc "perftune.perftune.$m" >"$TMP/doc-$m.txt" 2>"$TMP/doc-$m.err" ||
		{ cat "$TMP/doc-$m.err"; fail "ansible-doc perftune.perftune.$m"; }
	! grep -Ei 'error|warning' "$TMP/doc-$m.err" || fail "ansible-doc perftune.perftune.$m complained"
	grep -q '^OPTIONS' "$TMP/doc-$m.txt" || fail "ansible-doc $m: no OPTIONS"
	ansible-doc --json "perftune.perftune.$m" >"$TMP/doc-$m.json" || fail "ansible-doc --json perftune.perftune.$m"
	echo "ansible-doc perftune.perftune.$m: ok ($(wc -l <"$TMP/doc-$m.txt") lines)"
done
ansible-doc -l perftune.perftune >"$TMP/doc-list.txt" 2>"$TMP/doc-list.err" ||
	{ cat "$TMP/doc-list.err"; fail "ansible-doc -l perftune.perftune"; }
cat "$TMP/doc-list.txt"

echo "== the documentation matches the code"
"$APY" - "$TMP" "$SRC" <<'PY' || fail "documentation check"
import ast, json, sys, yaml
tmp, src = sys.argv[1:]
ok = True
listed = open(f"{tmp}/doc-list.txt").read().split()
for m in ("tunables", "profile_facts", "verify"):
    fq = f"perftune.perftune.{m}"
    d = json.load(open(f"{tmp}/doc-{m}.json"))[fq]
    documented = d["doc"]["options"]
    # the argument_spec=dict(...) in main(), read without importing the module
    tree = ast.parse(open(f"{src}/plugins/modules/{m}.py").read())
    spec = next(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "argument_spec"
    )
    def lit(node):  # literals and dict(k=v, ...) calls
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict":
            return {kw.arg: lit(kw.value) for kw in node.keywords}
        return ast.literal_eval(node)
    spec = lit(spec)
    if set(documented) != set(spec):
        print(f"{m}: documented options {sorted(documented)} != argument_spec {sorted(spec)}")
        ok = False
    for name, o in documented.items():
        if not o.get("description"):
            print(f"{m}: option {name} has no description")
            ok = False
        a = spec.get(name, {})
        for field in ("type", "default", "choices", "elements"):
            if o.get(field) != a.get(field) and not (field == "default" and a.get(field) == []):
                print(f"{m}: option {name}: {field} is {o.get(field)!r} in DOCUMENTATION, {a.get(field)!r} in the code")
                ok = False
    examples = yaml.safe_load(d["examples"])
    modules = {k for task in examples for k in task if k.startswith("perftune.perftune.")}
    if fq not in modules or not modules <= {f"perftune.perftune.{x}" for x in ("tunables", "profile_facts", "verify")}:
        print(f"{m}: examples call {sorted(modules)}")
        ok = False
    if not d.get("return"):
        print(f"{m}: no RETURN")
        ok = False
    if fq not in listed:
        print(f"{fq} is not listed by ansible-doc -l")
        ok = False
    print(f"{m}: {len(documented)} options, {len(examples)} examples, {len(d['return'] or {})} return values")
sys.exit(0 if ok else 1)
PY

echo "== ansible-galaxy collection build"
ansible-galaxy collection build "$SRC" --output-path "$TMP/dist" >"$TMP/build.log" 2>&1 ||
	{ cat "$TMP/build.log"; fail "ansible-galaxy collection build"; }
tail -n 1 "$TMP/build.log"
tar -tzf "$TMP"/dist/perftune-perftune-*.tar.gz >"$TMP/dist.list"
for f in MANIFEST.json FILES.json README.md plugins/modules/tunables.py plugins/modules/profile_facts.py plugins/modules/verify.py \
	plugins/module_utils/binding.py meta/runtime.yml; do
	grep -qx "$f" "$TMP/dist.list" || fail "the built collection lacks $f"
done
! grep -qx meson.build "$TMP/dist.list" || fail "the built collection ships meson.build"

echo "== the README's example playbook (syntax)"
awk '/^```yaml$/{f=1; next} /^```$/{if (f) exit} f' "$SRC/README.md" >"$TMP/readme.yml"
[ -s "$TMP/readme.yml" ] || fail "README.md has no \`\`\`yaml block"
printf '[databases]\nlocalhost\n' >"$TMP/readme-inventory"
ansible-playbook -i "$TMP/readme-inventory" --syntax-check "$TMP/readme.yml"
echo "ansible-doc test: ok"
