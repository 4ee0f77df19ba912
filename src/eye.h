/*
 * eye.h - the published 116.histo design: sample the eye, count it in
 * local-memory tiles per batch of input, reduce (kernels/eye_*.cl).
 */
#ifndef HISTO_EYE_H
#define HISTO_EYE_H

#include "strategy.h"

extern const struct strategy eye_strategy;

#endif
