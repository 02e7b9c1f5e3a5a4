#include "data/decode_pool.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/counter_rng.h"
#include "core/error.h"
#include "data/augment.h"
#include "data/jpeg_codec.h"
#include "data/sharding.h"

namespace mg {

namespace {

// A batch being decoded. Samples claimed before the consumer asks for the batch are decoded into the internal
// `images` buffer (prefetch); once next() has published the caller's buffer as `target`, workers decode the
// remaining samples straight into it, so an input-bound run (consumer waiting) pays no extra copy of the
// 600 KB a 224x224 fp32 image takes.
struct PendingBatch {
  std::vector<SampleRef> refs;
  std::vector<float> images;
  std::vector<int32_t> labels;
  std::vector<char> internal;  // per sample: written to `images` (1) or to `target` (0)
  float* target = nullptr;
  size_t next_item = 0;  // first sample not yet claimed by a worker
  size_t done = 0;       // samples finished (or failed)
  std::exception_ptr error;
};

class DecodePoolSource final : public DataSource {
 public:
  DecodePoolSource(std::unique_ptr<SampleStore> store, const DataSpec& spec, int prefetch)
      : store_(std::move(store)),
        spec_(spec),
        image_elems_(static_cast<size_t>(spec.image_size * spec.image_size * 3)),
        sharder_(store_->size(), spec.batch_size, spec.shard, spec.num_shards, spec.seed, store_->describe()) {
    for (int i = 0; i < prefetch; ++i) {
      auto b = std::make_unique<PendingBatch>();
      b->images.resize(image_elems_ * static_cast<size_t>(spec.batch_size));
      b->labels.resize(static_cast<size_t>(spec.batch_size));
      b->internal.resize(static_cast<size_t>(spec.batch_size));
      schedule(*b);
      queue_.push_back(std::move(b));
    }
    for (int t = 0; t < spec.threads; ++t) workers_.emplace_back([this] { work(); });
  }

  ~DecodePoolSource() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

  void next(void* inputs, int32_t* labels) override {
    float* images = static_cast<float*>(inputs);
    std::unique_ptr<PendingBatch> b;
    {
      std::unique_lock<std::mutex> lk(mu_);
      queue_.front()->target = images;
      done_cv_.wait(lk, [&] { return fatal_ || queue_.front()->done == queue_.front()->refs.size(); });
      if (fatal_) {
        // A worker could not start, so this batch may never complete. Writes into the caller's buffer must
        // stop before we return: later claims go to the internal buffer, earlier ones are waited for.
        PendingBatch& head = *queue_.front();
        head.target = nullptr;
        done_cv_.wait(lk, [&] { return head.done == head.next_item; });
        std::rethrow_exception(fatal_);
      }
      b = std::move(queue_.front());
      queue_.pop_front();
    }
    if (b->error) {
      // The batch is lost; put the buffers back for the next one so a caller that continues is not starved.
      std::exception_ptr e = b->error;
      requeue(std::move(b));
      std::rethrow_exception(e);
    }
    for (size_t k = 0; k < b->refs.size(); ++k) {
      if (b->internal[k]) {
        std::memcpy(images + k * image_elems_, b->images.data() + k * image_elems_, image_elems_ * sizeof(float));
      }
    }
    std::memcpy(labels, b->labels.data(), b->labels.size() * sizeof(int32_t));
    requeue(std::move(b));
  }

  int64_t samples_per_epoch() const override { return store_->size(); }
  int64_t skipped_images() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return static_cast<int64_t>(bad_.size());
  }
  int64_t num_classes() const override { return store_->num_classes(); }
  std::string describe() const override {
    return store_->describe() + ", " + std::to_string(spec_.threads) + " decode threads";
  }

 private:
  // Caller holds mu_ or owns b exclusively.
  void schedule(PendingBatch& b) {
    b.refs = sharder_.batch(next_step_++);
    b.target = nullptr;
    b.next_item = 0;
    b.done = 0;
    b.error = nullptr;
  }

  void requeue(std::unique_ptr<PendingBatch> b) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      schedule(*b);
      queue_.push_back(std::move(b));
    }
    work_cv_.notify_all();
  }

  // Decodes sample `index` into out; returns its label. Throws what read/decode threw.
  int32_t produce(int64_t index, int64_t epoch, JpegDecoder& dec, std::vector<uint8_t>& bytes, RgbImage& img,
                  float* out) {
    store_->read(index, bytes);
    dec.decode(bytes.data(), bytes.size(), store_->name(index), img);
    // The augmentation stream depends on (seed, epoch, sample) only: reproducible under any thread schedule.
    const uint64_t key = splitmix64(spec_.seed * 0x9E3779B97F4A7C15ull ^ splitmix64(static_cast<uint64_t>(epoch))) ^
                         static_cast<uint64_t>(index);
    const CropBox box = random_resized_crop(img.width, img.height, key);
    crop_resize_normalize(img, box, static_cast<int>(spec_.image_size), out);
    return store_->label(index);
  }

  void work() {
    std::unique_ptr<JpegDecoder> decoder;
    try {
      decoder = std::make_unique<JpegDecoder>();
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      if (!fatal_) fatal_ = std::current_exception();
      done_cv_.notify_all();
      return;
    }
    JpegDecoder& dec = *decoder;
    std::vector<uint8_t> bytes;
    RgbImage img;
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      PendingBatch* b = nullptr;
      work_cv_.wait(lk, [&] {
        if (stop_) return true;
        for (auto& q : queue_) {
          if (q->next_item < q->refs.size()) {
            b = q.get();
            return true;
          }
        }
        return false;
      });
      if (stop_) return;
      const size_t k = b->next_item++;
      const SampleRef ref = b->refs[k];
      b->internal[k] = b->target == nullptr;
      float* out = (b->target ? b->target : b->images.data()) + k * image_elems_;
      lk.unlock();

      int32_t label = 0;
      std::exception_ptr err;
      try {
        label = produce_or_substitute(ref, dec, bytes, img, out);
      } catch (...) {
        err = std::current_exception();
      }

      lk.lock();
      b->labels[k] = label;
      if (err && !b->error) b->error = err;
      ++b->done;
      done_cv_.notify_all();  // next() waits for a full batch, or after a failure for the claimed samples
    }
  }

  int32_t produce_or_substitute(const SampleRef& ref, JpegDecoder& dec, std::vector<uint8_t>& bytes,
                                RgbImage& img, float* out) {
    if (!spec_.skip_bad_images) return produce(ref.index, ref.epoch, dec, bytes, img, out);
    const int64_t n = store_->size();
    for (int64_t j = 0; j < n; ++j) {
      const int64_t idx = (ref.index + j) % n;
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (bad_.count(idx)) continue;
      }
      try {
        return produce(idx, ref.epoch, dec, bytes, img, out);
      } catch (const Error&) {
        std::lock_guard<std::mutex> lk(mu_);
        bad_.insert(idx);
      }
    }
    throw Error("no decodable image left in " + store_->describe() + " (all were skipped as bad)");
  }

  std::unique_ptr<SampleStore> store_;
  DataSpec spec_;
  size_t image_elems_;
  EpochSharder sharder_;  // guarded by mu_
  int64_t next_step_ = 0;

  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::unique_ptr<PendingBatch>> queue_;
  std::unordered_set<int64_t> bad_;
  std::exception_ptr fatal_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

std::unique_ptr<DataSource> make_decode_pool_source(std::unique_ptr<SampleStore> store, const DataSpec& spec,
                                                    int prefetch_batches) {
  if (store->num_classes() > spec.num_classes) {
    throw UsageError(store->describe() + " has " + std::to_string(store->num_classes()) +
                     " classes but the model has only " + std::to_string(spec.num_classes) +
                     " outputs (--num-classes)");
  }
  if (spec.threads < 1) throw UsageError("--data-threads must be at least 1, got " + std::to_string(spec.threads));
  if (prefetch_batches < 1) prefetch_batches = 1;
  return std::make_unique<DecodePoolSource>(std::move(store), spec, prefetch_batches);
}

}  // namespace mg
