/*
 * total_word.cuh - a call's result size handed to the host in the
 * context's pinned word (cuda_state::word): the kernel that knows the
 * total stores it with the call's ticket in one word, and the host waits
 * for that word (wait_for_total, launch.cuh) instead of for the stream.
 */
#ifndef MGPU_BLOCK_TOTAL_WORD_CUH
#define MGPU_BLOCK_TOTAL_WORD_CUH

#include <cuda/atomic>

namespace mgpu {

/* The total (at most MGPU_MAX_COUNT, below 2^31) in the high 32 bits, the
 * low 32 bits of the call's ticket in the low ones, so that the host
 * tells this call's total from an earlier call's. */
__host__ __device__ constexpr unsigned long long
total_word(unsigned long long total, unsigned long long ticket) {
  return total << 32 | (ticket & 0xffffffffull);
}
__host__ __device__ constexpr bool
total_word_is(unsigned long long word, unsigned long long ticket) {
  return (word & 0xffffffffull) == (ticket & 0xffffffffull);
}

/* The total for the host, in one word with the low 32 bits of this call's
 * ticket (total_word): one store, which the host sees whole or not at
 * all, so nothing has to order a total before a ticket.  The same word
 * after a system fence (the one the total and the ticket in two words
 * needed between them) made the staged pairs union ~1% slower
 * (docs/TUNING.md, Set operations). */
__device__ __forceinline__ void publish_total(unsigned long long *words,
                                              unsigned long long total,
                                              unsigned long long ticket) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(words[0])
      .store(total_word(total, ticket), cuda::memory_order_relaxed);
}

/* A result of up to 64 bits (scan's total, reduce's value), which does not
 * fit beside the ticket: the value in words[1], then the ticket alone in
 * words[0] with release, so that the host which sees the ticket with
 * acquire (wait_for_value, launch.cuh) sees the value. */
__device__ __forceinline__ void publish_value(unsigned long long *words,
                                              unsigned long long value,
                                              unsigned long long ticket) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(words[1])
      .store(value, cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(words[0])
      .store(total_word(0, ticket), cuda::memory_order_release);
}

} // namespace mgpu

#endif
