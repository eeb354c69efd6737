/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/oldheaders: kernel headers as old as RHEL 8's (4.18), see README */
#error hidden: 4.18 kernel headers have no linux/ethtool_netlink.h
