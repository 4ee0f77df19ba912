/*
 * eye.h - the published 116.histo design: sample the eye, count it in
 * local-memory tiles per batch of input, reduce (kernels/eye_*.cl).
 */
#ifndef HISTO_EYE_H
#define HISTO_EYE_H

#include "strategy.h"

extern const struct strategy eye_strategy;

/* The eye design with R copies of each tile per work-group, each counted
 * by 1/R of the group's work-items (replicated sub-histograms). */
extern const struct strategy replicated_strategy;
/* The eye strategy in one launch an iteration (eye_fused.cl). */
extern const struct strategy fused_strategy;

#endif
