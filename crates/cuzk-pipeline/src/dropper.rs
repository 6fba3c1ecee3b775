use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

type Task = Box<dyn FnOnce() + Send>;

/// One background thread that frees large buffers (ProvingAssignments, host
/// temporaries) so that no caller's timer pays for it.
///
/// One serialised worker rather than a thread per buffer: many parallel frees
/// of multi-gigabyte buffers turn into an munmap storm that stalls the whole
/// machine. After each free it has the allocator give the memory back
/// ([`cuzk_ffi::allocator::give_back_freed`]): mimalloc purges freed pages
/// late, and lazily, so a buffer whose owner thread sits idle would stay
/// resident while the budget counted it free.
pub struct Dropper {
    tx: Option<Sender<Task>>,
    worker: Option<JoinHandle<()>>,
}

impl Dropper {
    /// Starts the worker thread.
    pub fn new() -> Self {
        let (tx, rx) = channel::<Task>();
        let worker = std::thread::Builder::new()
            .name("cuzk-dropper".into())
            .spawn(move || {
                for task in rx {
                    task();
                }
            })
            .expect("spawning the dropper thread");
        Dropper { tx: Some(tx), worker: Some(worker) }
    }

    /// Drops `value` on the worker and gives the memory back to the OS, then
    /// runs `after` (e.g. to return the bytes to the budget once they are
    /// really gone).
    pub fn drop_then<T: Send + 'static>(&self, value: T, after: impl FnOnce() + Send + 'static) {
        let task: Task = Box::new(move || {
            drop(value);
            cuzk_ffi::allocator::give_back_freed();
            after();
        });
        if let Some(tx) = &self.tx {
            if let Err(unsent) = tx.send(task) {
                (unsent.0)();
            }
        }
    }
}

impl Default for Dropper {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Dropper {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Noisy(Arc<AtomicUsize>, std::thread::ThreadId);
    impl Drop for Noisy {
        fn drop(&mut self) {
            assert_ne!(std::thread::current().id(), self.1, "dropped on the caller's thread");
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn drops_off_thread_in_order_then_runs_the_callback() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let d = Dropper::new();
        for i in 0..5 {
            let (dropped2, seen2) = (dropped.clone(), seen.clone());
            d.drop_then(Noisy(dropped.clone(), std::thread::current().id()), move || {
                seen2.lock().unwrap().push((i, dropped2.load(Ordering::SeqCst)));
            });
        }
        drop(d);
        assert_eq!(dropped.load(Ordering::SeqCst), 5);
        assert_eq!(*seen.lock().unwrap(), (0..5).map(|i| (i, i + 1)).collect::<Vec<_>>());
    }
}
