/* Driving a GstTestClock shared by elements whose tasks wait on it with
 * asynchronous clock ids (rtpccsink, rtpccsrc: plugins/rtpcc/
 * rtpcctimebase.h).
 *
 * Such a task registers one clock id when it goes idle, and only then:
 * "@waiters ids are pending" means every task is idle, each waiting for
 * its next deadline. Time then advances to the earliest deadline, that id
 * is processed (its task wakes up, works, and registers its next one), and
 * so on: the elements see the same sequence of instants however fast the
 * machine is, and no test sleeps.
 *
 * An element woken by something else (a datagram on its socket, a buffer
 * pushed into it that its task must handle) unregisters its id when it
 * wakes: clock_settle_after() waits for that, with the ids taken before
 * the action (clock_snapshot()), so that the element has processed the
 * action before the test looks at its counters. (rtpccsink sends a packet
 * the pacer lets go from render() itself and wakes its task only for the
 * rest; its task-wakeups stat tells the test which it was.)
 *
 * A datagram one element sends another is in the receiver's socket queue
 * before the sender goes idle, while the receiver may not have woken yet
 * (its id still pending): "idle" also needs the sockets of the elements to
 * be empty. The test names their ports (clock_watch_port()), and settling
 * waits until the kernel's receive queues on them (/proc/net/udp{,6}) are
 * empty: an element reads its socket only after it unregistered its id,
 * so an empty queue and a pending id mean it is idle.
 *
 * The waits are condition waits, bounded in real time only as a guard
 * against a hung element (the test then fails).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TEST_CLOCK_UTIL_H__
#define __RTPCC_TEST_CLOCK_UTIL_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gsttestclock.h>

G_BEGIN_DECLS

/* The elements using @clock receive on local UDP @port. */
void clock_watch_port (GstTestClock * clock, guint16 port);

/* Blocks until @waiters clock ids are pending on @clock and the watched
 * sockets are empty. */
void clock_settle (GstTestClock * clock, guint waiters);

/* The ids pending now (references), for clock_settle_after(). */
GList *clock_snapshot (GstTestClock * clock);

/* After an action that wakes an element (it then unregisters its id):
 * blocks until one of @before (from clock_snapshot(), freed) is no longer
 * pending or an id not in @before is (the element was already awake at
 * the snapshot), then until @waiters ids are pending again. */
void clock_settle_after (GstTestClock * clock, guint waiters, GList * before);

/* Runs @clock to @until: each pending id due by then, earliest first, is
 * processed once every waiter is idle; then the time is set to @until. */
void clock_run_until (GstTestClock * clock, guint waiters,
    GstClockTime until);

/* clock_run_until() @dt from now. */
void clock_advance (GstTestClock * clock, guint waiters, GstClockTime dt);

G_END_DECLS

#endif
