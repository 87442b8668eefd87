/* SPDX-License-Identifier: GPL-2.0-only */
/* protocol.h: what the guest init and the host agree on (console markers, command line, plan path).
 *
 * The init prints TAP 13 on the console. Around it, marker lines the host reads:
 *   # tapboot: begin nonce=<hex> tests=<n> kernel=<uname -r>
 *   # tapboot: run <num> <name>          before test <num> starts (what is running now)
 *   ok <num> <name> [# DIRECTIVE reason] followed by a YAML block with duration_s, exit/signal
 *                                        (a plain pass's exit 0 left out when tagged)
 *   # tapboot: end nonce=<hex> pass=<n> fail=<n> ...
 * A test's own output is nested 4 spaces deep (KTAP style): its TAP/KTAP lines as they are,
 * every other line as a "# " diagnostic. A run is complete only when the end line carries the
 * nonce the host put on the kernel command line.
 *
 * Every line the init writes that is not nested (does not start with TAPBOOT_NEST_INDENT
 * spaces) carries a tag keyed with the run's secret (line_tag.h), a YAML block one tag on its
 * "  ..." line over the whole block, so that a test writing
 * protocol-shaped lines to /dev/console or /dev/kmsg cannot make a result: the host takes
 * only tagged lines as protocol, the result for test N only after `run N`, once, in order. */
#ifndef TAPBOOT_PROTOCOL_H
#define TAPBOOT_PROTOCOL_H

#define TAPBOOT_MARK "# tapboot: "
#define TAPBOOT_MARK_BEGIN "# tapboot: begin "
#define TAPBOOT_MARK_RUN "# tapboot: run "
#define TAPBOOT_MARK_END "# tapboot: end "

/* Kernel command-line parameters the init understands. */
#define TAPBOOT_ARG_NONCE "tapboot.nonce="
#define TAPBOOT_ARG_FILTER "tapboot.filter=" /* glob on the test name; repeatable */
#define TAPBOOT_ARG_TIMEOUT "tapboot.timeout=" /* seconds, overrides every test's timeout */
/* 1: run tests flagged disruptive; elsewhere: leave them out (each has a VM of its own) */
#define TAPBOOT_ARG_DISRUPTIVE "tapboot.disruptive="
#define TAPBOOT_ARG_SHARD "tapboot.shard=" /* K/N: run tests whose index % N == K */
/* run only these test numbers (1-based, in the plan): N, or a list like 1,4,7-9; repeatable */
#define TAPBOOT_ARG_ONLY "tapboot.only="
/* tapboot.privileged=elsewhere: the tests flagged privileged run in VMs of their own */
#define TAPBOOT_ARG_PRIVILEGED "tapboot.privileged="

/* Snapshot boot (run/snapshot.c). With TAPBOOT_ARG_HANDOFF on the kernel command line the init
 * does its set-up (mounts, the plan, modules), prints TAPBOOT_READY_LINE on the console and waits,
 * echo off, for one line on the console's input: more parameters in the command line's syntax,
 * the ones that differ per VM. The host may save the VM while it waits and start other VMs from
 * that state; each gets its own line. Only there, never on the command line: */
#define TAPBOOT_ARG_HANDOFF "tapboot.handoff=1"
#define TAPBOOT_READY_LINE "tapboot-init: ready"
#define TAPBOOT_ARG_KEY "tapboot.key="	 /* the run's secret, 32 hex digits */
#define TAPBOOT_ARG_SEED "tapboot.seed=" /* 64 hex digits mixed into the kernel's RNG, reseeded */
#define TAPBOOT_ARG_TIME "tapboot.time=" /* the host's CLOCK_REALTIME, SECONDS.NANOSECONDS */
/* With a tests image (an ivshmem device): "keep", the guest holds this VM's tests under /tests
 * already (the saved state has the same); "load", what is under /tests goes and the device's
 * archive is unpacked there. Without it (a cold boot's command line): the device is read when
 * there is one. */
#define TAPBOOT_ARG_TESTS "tapboot.tests="

/* Where the builder puts things in the image. */
#define TAPBOOT_PLAN_PATH "/tapboot/plan"
#define TAPBOOT_TESTS_DIR "/tests"
#define TAPBOOT_INIT_PATH "/init"
/* The run's secret (16 raw bytes): the host appends it to the image as a last small archive;
 * the init reads and unlinks it before anything else, so no test can read it. */
#define TAPBOOT_KEY_PATH "/tapboot/key"

/* Indentation of a test's own output on the console (KUnit uses 4). */
#define TAPBOOT_NEST_INDENT 4

#endif
