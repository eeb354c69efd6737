// SPDX-License-Identifier: LGPL-2.1-or-later
module github.com/libperftune/perftune-go

go 1.19
