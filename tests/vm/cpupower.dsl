/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-only SSDT for the VM tier (tests/vm/README.md, issue 19): gives qemu's
 * 4 CPUs (\_SB.CPUS.C000..C003, qemu's CPU hotplug AML) the ACPI objects the
 * guest kernel's own drivers bind to, so that the kernel's cpufreq and
 * cpuidle cores run under our tests:
 *  - _PCT/_PSS/_PPC through SystemIO registers: acpi-cpufreq, 4 P-states.
 *    TCG ignores the control write; the status port reads all ones or zeros
 *    (an unassigned port), so the fastest state answers 0xFF and the slowest
 *    0x00: the driver's ->get() always finds a state.
 *  - _CST: acpi_idle with C1 (HLT: an FFixedHW entry whose MWAIT probe fails
 *    falls back to HLT) and C2 (SystemIO: a port read).  A SystemIO C2 is a
 *    busy loop under TCG, so guest-boot.sh disables C2 at boot.
 * Ports 0x0e00-0x0e03 are unassigned on qemu's q35.
 * Compiled by run-vm with iasl (acpica-tools), passed with -acpitable.
 */
DefinitionBlock ("", "SSDT", 2, "PTUNE", "CPUPWR", 1)
{
    External (\_SB.CPUS.C000, DeviceObj)
    External (\_SB.CPUS.C001, DeviceObj)
    External (\_SB.CPUS.C002, DeviceObj)
    External (\_SB.CPUS.C003, DeviceObj)

    Name (\PTPC, Package () {
        ResourceTemplate () { Register (SystemIO, 8, 0, 0x0e00, , ) },
        ResourceTemplate () { Register (SystemIO, 8, 0, 0x0e01, , ) }
    })
    /* MHz, mW, latency us, bus master latency us, control, status */
    Name (\PTPS, Package () {
        Package () { 3000, 30000, 10, 10, 0x30, 0xff },
        Package () { 2400, 20000, 10, 10, 0x24, 0x24 },
        Package () { 1800, 12000, 10, 10, 0x18, 0x18 },
        Package () { 1200, 8000, 10, 10, 0x12, 0x00 }
    })
    /* count, then { register, type, latency us, power mW } */
    Name (\PTCS, Package () {
        2,
        Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0, , ) }, 1, 1, 1000 },
        Package () { ResourceTemplate () { Register (SystemIO, 8, 0, 0x0e02, , ) }, 2, 50, 500 }
    })

    Scope (\_SB.CPUS.C000) {
        Method (_PCT) { Return (\PTPC) }
        Method (_PSS) { Return (\PTPS) }
        Method (_PPC) { Return (0) }
        Method (_CST) { Return (\PTCS) }
    }
    Scope (\_SB.CPUS.C001) {
        Method (_PCT) { Return (\PTPC) }
        Method (_PSS) { Return (\PTPS) }
        Method (_PPC) { Return (0) }
        Method (_CST) { Return (\PTCS) }
    }
    Scope (\_SB.CPUS.C002) {
        Method (_PCT) { Return (\PTPC) }
        Method (_PSS) { Return (\PTPS) }
        Method (_PPC) { Return (0) }
        Method (_CST) { Return (\PTCS) }
    }
    Scope (\_SB.CPUS.C003) {
        Method (_PCT) { Return (\PTPC) }
        Method (_PSS) { Return (\PTPS) }
        Method (_PPC) { Return (0) }
        Method (_CST) { Return (\PTCS) }
    }
}
