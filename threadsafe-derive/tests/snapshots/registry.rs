// Snapshot of `#[thread_safe(prefixes = 25, budget = "5s", seed = 7)]` on the impl block below: written by
// threadsafe-derive/src/snapshots.rs (`UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive`).

impl Registry {
    pub fn new() -> Self {
        Registry::default()
    }
    pub fn with_capacity(n: usize) -> Self {
        todo!()
    }
    pub fn open(path: &str) -> Result<Self, String> {
        todo!()
    }
    pub fn shared() -> Arc<Self> {
        todo!()
    }
    pub fn insert(&self, k: String, v: u32) -> Option<u32> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "insert",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn get(&self, k: &str) -> Option<u32> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "get",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn get_all(&self, keys: &[String], out: &mut Vec<u32>) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "get_all",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn merge(&self, other: &Registry) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "merge",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn adopt(&self, other: Arc<Self>, peer: &Arc<Self>) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "adopt",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn snapshot(&self) -> Self {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "snapshot",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn guard(&self) -> MutexGuard<'_, u32> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "guard",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn handle(self: &Arc<Self>) -> usize {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "handle",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn detach(self: Arc<Self>) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "detach",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn compact(&mut self) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "compact",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn debug_dump(&self) {
        todo!()
    }
    fn rehash(&self) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "rehash",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn into_inner(self) -> HashMap<String, u32> {
        todo!()
    }
    pub unsafe fn raw(&self) -> *const u8 {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "raw",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn visit(&self, f: impl Fn(&str)) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "visit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn find(&self, k: Option<&str>) -> bool {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "find",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn default_capacity() -> usize {
        16
    }
    #[cfg(feature = "persist")]
    pub fn save(&self, to: &Path) -> std::io::Result<()> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "save",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
}
const _: () = {
    #[allow(dead_code)]
    const _: fn() = || {
        struct IsSendAndSync;
        struct IsNotSendAndSync;
        trait Yes {
            fn verdict(&self) -> IsSendAndSync {
                IsSendAndSync
            }
        }
        impl<T: ?::core::marker::Sized + ::core::marker::Send + ::core::marker::Sync> Yes
        for &::core::marker::PhantomData<T> {}
        trait No {
            fn verdict(&self) -> IsNotSendAndSync {
                IsNotSendAndSync
            }
        }
        impl<T: ?::core::marker::Sized> No for ::core::marker::PhantomData<T> {}
        #[diagnostic::on_unimplemented(
            message = "`Registry` cannot be checked by #[thread_safe]: it is not `Send + Sync`",
            label = "the checked type must be `Send + Sync`: its instance is shared between threads",
            note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics"
        )]
        trait SendAndSync {}
        impl SendAndSync for IsSendAndSync {}
        fn assert_send_and_sync<V: SendAndSync>(_: V) {}
        assert_send_and_sync((&&::core::marker::PhantomData::<Registry>).verdict());
    };
    #[automatically_derived]
    impl ::threadsafe_rt::Subject for Registry {
        #[allow(
            deprecated,
            unreachable_code,
            clippy::needless_borrow,
            clippy::let_and_return
        )]
        fn describe() -> ::threadsafe_rt::__private::Description<Self> {
            #[allow(unused_imports)]
            use ::threadsafe_rt::__private::{
                ViaSubject as _, ViaGenerate as _, ViaNothing as _, CloneYes as _,
                CloneNo as _, StashKeep as _, StashDrop as _,
            };
            #[allow(unused_imports)]
            use ::threadsafe_rt::__private::{
                ObserveValue as _, ObserveDebug as _, ObserveNothing as _,
            };
            let __d = ::threadsafe_rt::__private::Description::new("Registry");
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "new",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([]),
                        |__f| { __f.made(<Registry>::new()) },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "with_capacity",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::value::<
                                usize,
                            >(
                                "n",
                                "usize",
                                ::threadsafe_rt::__private::Pass::Owned,
                                (&&&::threadsafe_rt::__private::Probe::<usize>::new())
                                    .maker(),
                                (&&::threadsafe_rt::__private::Probe::<usize>::new())
                                    .cloner(),
                            ),
                        ]),
                        |__f| {
                            let __a0 = __f.take::<usize>(0)?;
                            __f.made(<Registry>::with_capacity(__a0))
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "open",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::value::<
                                ::std::string::String,
                            >(
                                "path",
                                "&str",
                                ::threadsafe_rt::__private::Pass::Deref,
                                (&&&::threadsafe_rt::__private::Probe::<
                                    ::std::string::String,
                                >::new())
                                    .maker(),
                                (&&::threadsafe_rt::__private::Probe::<
                                    ::std::string::String,
                                >::new())
                                    .cloner(),
                            ),
                        ]),
                        |__f| {
                            let __a0 = __f.take::<::std::string::String>(0)?;
                            __f.made_result(<Registry>::open(&__a0))
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "shared",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([]),
                        |__f| { __f.made_arc(<Registry>::shared()) },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "insert",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::threadsafe_rt::__private::Param::value::<
                                    String,
                                >(
                                    "k",
                                    "String",
                                    ::threadsafe_rt::__private::Pass::Owned,
                                    (&&&::threadsafe_rt::__private::Probe::<String>::new())
                                        .maker(),
                                    (&&::threadsafe_rt::__private::Probe::<String>::new())
                                        .cloner(),
                                ),
                                ::threadsafe_rt::__private::Param::value::<
                                    u32,
                                >(
                                    "v",
                                    "u32",
                                    ::threadsafe_rt::__private::Pass::Owned,
                                    (&&&::threadsafe_rt::__private::Probe::<u32>::new())
                                        .maker(),
                                    (&&::threadsafe_rt::__private::Probe::<u32>::new()).cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<String>(0)?;
                                let __a1 = __f.take::<u32>(1)?;
                                let __r = <Registry>::insert(__recv, __a0, __a1);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Option<u32>"),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "get",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::threadsafe_rt::__private::Param::value::<
                                    ::std::string::String,
                                >(
                                    "k",
                                    "&str",
                                    ::threadsafe_rt::__private::Pass::Deref,
                                    (&&&::threadsafe_rt::__private::Probe::<
                                        ::std::string::String,
                                    >::new())
                                        .maker(),
                                    (&&::threadsafe_rt::__private::Probe::<
                                        ::std::string::String,
                                    >::new())
                                        .cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<::std::string::String>(0)?;
                                let __r = <Registry>::get(__recv, &__a0);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Option<u32>"),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "get_all",
                        ::threadsafe_rt::__private::Receiver::Shared,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::value::<
                                ::std::vec::Vec<String>,
                            >(
                                "keys",
                                "&[String]",
                                ::threadsafe_rt::__private::Pass::Deref,
                                (&&&::threadsafe_rt::__private::Probe::<
                                    ::std::vec::Vec<String>,
                                >::new())
                                    .maker(),
                                (&&::threadsafe_rt::__private::Probe::<
                                    ::std::vec::Vec<String>,
                                >::new())
                                    .cloner(),
                            ),
                            ::threadsafe_rt::__private::Param::value::<
                                Vec<u32>,
                            >(
                                "out",
                                "&mut Vec<u32>",
                                ::threadsafe_rt::__private::Pass::RefMut,
                                (&&&::threadsafe_rt::__private::Probe::<Vec<u32>>::new())
                                    .maker(),
                                (&&::threadsafe_rt::__private::Probe::<Vec<u32>>::new())
                                    .cloner(),
                            ),
                        ]),
                        |__f| {
                            let __recv = __f.shared()?;
                            let __a0 = __f.take::<::std::vec::Vec<String>>(0)?;
                            let mut __a1 = __f.take::<Vec<u32>>(1)?;
                            <Registry>::get_all(__recv, &__a0, &mut __a1);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "merge",
                        ::threadsafe_rt::__private::Receiver::Shared,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::instance(
                                "other",
                                "&Registry",
                                ::threadsafe_rt::__private::InstancePass::Ref,
                            ),
                        ]),
                        |__f| {
                            let __recv = __f.shared()?;
                            let __a0 = __f.instance(0)?;
                            <Registry>::merge(__recv, __a0);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "adopt",
                        ::threadsafe_rt::__private::Receiver::Shared,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::instance(
                                "other",
                                "Arc<Self>",
                                ::threadsafe_rt::__private::InstancePass::Arc,
                            ),
                            ::threadsafe_rt::__private::Param::instance(
                                "peer",
                                "&Arc<Self>",
                                ::threadsafe_rt::__private::InstancePass::ArcRef,
                            ),
                        ]),
                        |__f| {
                            let __recv = __f.shared()?;
                            let __a0 = ::std::sync::Arc::clone(__f.instance_arc(0)?);
                            let __a1 = __f.instance_arc(1)?;
                            <Registry>::adopt(__recv, __a0, __a1);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "snapshot",
                        ::threadsafe_rt::__private::Receiver::Shared,
                        ::std::vec::Vec::from([]),
                        |__f| {
                            let __recv = __f.shared()?;
                            __f.made(<Registry>::snapshot(__recv))
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "guard",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Registry>::guard(__recv);
                                (&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("MutexGuard<'_, u32>"),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "handle",
                            ::threadsafe_rt::__private::Receiver::ArcRef,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.arc()?;
                                let __r = <Registry>::handle(__recv);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("usize")
                        .nondeterministic(),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "detach",
                        ::threadsafe_rt::__private::Receiver::Arc,
                        ::std::vec::Vec::from([]),
                        |__f| {
                            let __recv = ::std::sync::Arc::clone(__f.arc()?);
                            <Registry>::detach(__recv);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "compact",
                        ::threadsafe_rt::__private::Receiver::Exclusive,
                        ::std::vec::Vec::from([]),
                        |__f| {
                            let __recv = __f.exclusive()?;
                            <Registry>::compact(__recv);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d.skip("debug_dump", "excluded with #[thread_safe(skip)]");
            let __d = __d.skip("rehash", "not public");
            let __d = __d.skip("into_inner", "takes `self` by value");
            let __d = __d
                .skip(
                    "raw",
                    "`unsafe fn`: the generator cannot uphold its safety contract",
                );
            let __d = __d
                .skip(
                    "visit",
                    "generic method (`impl Trait` argument `f: impl Fn(&str)`)",
                );
            let __d = __d.skip("find", "argument `k: Option<&str>` borrows");
            let __d = __d
                .skip(
                    "default_capacity",
                    "associated function that does not return `Self` (not a constructor)",
                );
            #[cfg(feature = "persist")]
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "save",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::threadsafe_rt::__private::Param::value::<
                                    ::std::path::PathBuf,
                                >(
                                    "to",
                                    "&Path",
                                    ::threadsafe_rt::__private::Pass::Deref,
                                    (&&&::threadsafe_rt::__private::Probe::<
                                        ::std::path::PathBuf,
                                    >::new())
                                        .maker(),
                                    (&&::threadsafe_rt::__private::Probe::<
                                        ::std::path::PathBuf,
                                    >::new())
                                        .cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<::std::path::PathBuf>(0)?;
                                let __r = <Registry>::save(__recv, &__a0);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("std::io::Result<()>"),
                );
            #[cfg(test)]
            let __d = __d
                .statements({
                    #[allow(clippy::zero_prefixed_literal)]
                    static __TS_STATEMENTS: &[::threadsafe_rt::__private::StatementPoint] = &[
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "insert",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "get",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "get_all",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "merge",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "adopt",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "snapshot",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "guard",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "handle",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "detach",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "compact",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "rehash",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "raw",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "visit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "find",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        #[cfg(feature = "persist")]
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "save",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                    ];
                    __TS_STATEMENTS
                });
            __d
        }
    }
};
/// Checks the thread safety of `Registry` (generated by `#[thread_safe]`).
#[cfg(test)]
#[::core::prelude::v1::test]
fn thread_safe_registry() {
    let mut __config = ::threadsafe_rt::Config::default();
    __config.prefixes = 25;
    __config.budget = ::core::time::Duration::from_nanos(5000000000);
    __config.seed = 7;
    ::threadsafe_rt::__private::run_test::<Registry>(__config);
}
