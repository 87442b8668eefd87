/* SPDX-License-Identifier: GPL-2.0-only */
/* lava_job.h: tapboot lava-job's writer: what run/ exported for one VM (run.h's struct
 * run_export), written as a LAVA job on LAVA's stock qemu device type, with a device and a
 * dispatcher file for running it locally with lava-run. */
#ifndef TAPBOOT_LAVA_JOB_H
#define TAPBOOT_LAVA_JOB_H

#include <stdbool.h>

#include "run.h"

/* Whether x can be a LAVA job (at least one test, a command line LAVA's image_arg can carry,
 * test names LAVA keeps apart), then the kernel, job.yaml, device.yaml and dispatcher.yaml
 * into x->dir beside its initramfs.cpio. kvm: let LAVA use KVM (else no_kvm: TCG); url_base:
 * where a lab's workers fetch the files (NULL: file://x->dir). 0, or -1 after a message, and
 * then x->dir is removed with what run/ and this wrote there (bad input leaves no half-made
 * job behind). */
int lava_job_write(const struct run_export *x, bool kvm, const char *url_base);

/* The three files' texts (caller frees), for lava_job_write and the unit tests. */
char *lava_job_yaml(const struct run_export *x, bool kvm, const char *url_base,
		    const char *kernel_name);
char *lava_device_yaml(const struct run_export *x, bool kvm);
extern const char lava_dispatcher_yaml[];

#endif
