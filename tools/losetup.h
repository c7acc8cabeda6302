/* SPDX-License-Identifier: GPL-2.0 */
/* losetup's command line for aioloop devices (aiolosetup) */
#ifndef LOSETUP_H
#define LOSETUP_H

#include <stdbool.h>

int losetup_main(int argc, char **argv);
bool losetup_option(const char *arg);

#endif
