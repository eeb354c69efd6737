/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tx.c: what the layers above the engine read of a transaction that the
 * public API does not give (lib/report/ tells a dry run from a commit).
 */
#ifndef PERFTUNE_ENGINE_TX_H
#define PERFTUNE_ENGINE_TX_H

#include "perftune.h"

/* the context @tx was made in */
struct perftune_ctx *pt_tx_ctx(struct perftune_tx *tx);
/* the PERFTUNE_TX_* flags @tx was made with */
unsigned pt_tx_flags(struct perftune_tx *tx);

#endif
