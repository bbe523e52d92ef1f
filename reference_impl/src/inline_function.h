// A move-only std::function that keeps a callable of up to Capacity bytes inside
// itself. Every transfer passes a task and a completion through one of these;
// std::function has room for 16 bytes, so each went to the heap, allocated by the
// launcher and freed by the worker (or by the worker and freed by the progress
// thread): most of the ~6 % of an 8 B ping-pong's CPU that malloc and free took.
// Larger callables still work: they are kept on the heap.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace hcomm_ref {

template <typename Signature, std::size_t Capacity = 48>
class InlineFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
  public:
    InlineFunction() noexcept {}
    InlineFunction(std::nullptr_t) noexcept {}

    template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, InlineFunction> &&
             std::is_invocable_r_v<R, std::decay_t<F> &, Args...>) InlineFunction(F &&f)
    {
        using Stored = std::decay_t<F>;
        if constexpr (kFitsInline<Stored>) {
            ::new (static_cast<void *>(storage_)) Stored(std::forward<F>(f));
            ops_ = &kOps<Stored, false>;
        } else {
            using Box = std::unique_ptr<Stored>;
            ::new (static_cast<void *>(storage_)) Box(std::make_unique<Stored>(std::forward<F>(f)));
            ops_ = &kOps<Box, true>;
        }
    }

    InlineFunction(InlineFunction &&other) noexcept { take(other); }
    InlineFunction &operator=(InlineFunction &&other) noexcept
    {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    InlineFunction &operator=(std::nullptr_t) noexcept
    {
        reset();
        return *this;
    }
    InlineFunction(const InlineFunction &) = delete;
    InlineFunction &operator=(const InlineFunction &) = delete;
    ~InlineFunction() { reset(); }

    // Whether a callable of type F is kept inside, without an allocation.
    template <typename F>
    static constexpr bool
        kFitsInline = sizeof(F) <= Capacity &&
                      alignof(F) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<F>;

    explicit operator bool() const noexcept { return ops_ != nullptr; }
    // Whether the callable lives on the heap (it was larger than Capacity): for tests.
    bool on_heap() const noexcept { return ops_ != nullptr && ops_->boxed; }

    // Const like std::function's: the callable itself may change its state.
    R operator()(Args... args) const
    {
        if (ops_ == nullptr)
            throw std::bad_function_call();
        return ops_->invoke(const_cast<std::byte *>(storage_), std::forward<Args>(args)...);
    }

  private:
    struct Ops {
        R (*invoke)(void *, Args &&...);
        void (*move)(void *to, void *from) noexcept; // and destroys `from`
        void (*destroy)(void *) noexcept;
        bool boxed;
    };

    template <typename T, bool Boxed>
    static constexpr Ops kOps{
        [](void *p, Args &&...args) -> R {
            T &held = *static_cast<T *>(p);
            if constexpr (Boxed)
                return std::invoke(*held, std::forward<Args>(args)...);
            else
                return std::invoke(held, std::forward<Args>(args)...);
        },
        [](void *to, void *from) noexcept {
            T &source = *static_cast<T *>(from);
            ::new (to) T(std::move(source));
            source.~T();
        },
        [](void *p) noexcept { static_cast<T *>(p)->~T(); },
        Boxed,
    };

    void take(InlineFunction &other) noexcept
    {
        if (other.ops_ != nullptr) {
            other.ops_->move(storage_, other.storage_);
            ops_ = std::exchange(other.ops_, nullptr);
        }
    }
    void reset() noexcept
    {
        if (ops_ != nullptr)
            std::exchange(ops_, nullptr)->destroy(storage_);
    }

    alignas(std::max_align_t) std::byte storage_[Capacity];
    const Ops *ops_ = nullptr;
};

} // namespace hcomm_ref
