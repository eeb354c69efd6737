#!/usr/bin/perl
# SPDX-License-Identifier: LGPL-2.1-or-later
# dh-sequence-perftune: run dh_perftune (perftune-packaging(7)), after
# dh_installsystemd as dh_installtmpfiles runs after dh_install.
use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_after('dh_installsystemd', 'dh_perftune');

1;
