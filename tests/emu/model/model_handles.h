// A coherence model and a model thread as test-owned objects, for the
// model's unit tests: made in the constructor, freed in the destructor.
#ifndef JITFLUSH_TESTS_EMU_MODEL_MODEL_HANDLES_H
#define JITFLUSH_TESTS_EMU_MODEL_MODEL_HANDLES_H

#include <cstdint>
#include <vector>

#include "model_coherence.h"

// A model of clusters with the given CTR_EL0 values, one per cluster.
struct Model {
  explicit Model(std::vector<uint64_t> ctrs, const model_views *views = nullptr)
  {
    m = model_new(ctrs.data(), static_cast<unsigned>(ctrs.size()), views);
  }
  ~Model()
  {
    model_free(m);
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  model *m;
};

// A thread with SERIAL running on CLUSTER.
struct Thread {
  Thread(unsigned serial, unsigned cluster)
  {
    model_thread_init(&t, serial, serial, cluster);
  }
  ~Thread()
  {
    model_thread_clear(&t);
  }
  Thread(const Thread &) = delete;
  Thread &operator=(const Thread &) = delete;
  model_thread t;
};

#endif
