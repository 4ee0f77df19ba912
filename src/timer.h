/* timer.h - host wall-clock time from a monotonic clock. */
#ifndef HISTO_TIMER_H
#define HISTO_TIMER_H

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double timer_now(void);

#endif
