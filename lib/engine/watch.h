/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * watch.c: a held transaction follows devices added later (perftune_tx_watch(),
 * perftune_tx_dispatch()).  What it offers the layers above: a way to give
 * a transaction the rules that selected its devices, and the test of whether
 * a tunable belongs to a device.
 */
#ifndef PERFTUNE_ENGINE_WATCH_H
#define PERFTUNE_ENGINE_WATCH_H

#include <stdbool.h>
#include "perftune.h"
#include "core/key.h"
#include "engine/tx-internal.h"

/*
 * @tx follows @ops (a profile's rules) for devices added while it is held;
 * @data is freed through @ops when replaced or with @tx.  A transaction
 * without PERFTUNE_TX_HOLD frees @data at once: nothing follows it.
 */
void pt_tx_set_rules(struct perftune_tx *tx, const struct pt_tx_rules_ops *ops, void *data);
/* @t is a file (or object) of device @name of @subsystem ("block", "net") */
bool pt_tunable_on_device(const struct pt_tunable *t, const char *subsystem, const char *name);

#endif
