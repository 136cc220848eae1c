// Snapshot of `#[thread_safe(instantiate = "Cache<String, u32>", crate = "::my_threadsafe", executor = "paper")]` on the impl block below: written by
// threadsafe-derive/src/snapshots.rs (`UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive`).

impl<K: Eq + Hash + Clone, V: Clone> Cache<K, V> {
    pub fn new() -> Self {
        todo!()
    }
    pub fn get(&self, k: &K) -> Option<V> {
        #[cfg(test)]
        ::my_threadsafe::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::my_threadsafe::__private::StatementPoint = ::my_threadsafe::__private::StatementPoint {
                method: "get",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn put(&self, k: K, v: V) -> Option<V> {
        #[cfg(test)]
        ::my_threadsafe::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::my_threadsafe::__private::StatementPoint = ::my_threadsafe::__private::StatementPoint {
                method: "put",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn put_all(&self, other: &Cache<K, V>) {
        #[cfg(test)]
        ::my_threadsafe::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::my_threadsafe::__private::StatementPoint = ::my_threadsafe::__private::StatementPoint {
                method: "put_all",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        todo!()
    }
    pub fn keys(&self) -> Vec<K> {
        #[cfg(test)]
        ::my_threadsafe::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::my_threadsafe::__private::StatementPoint = ::my_threadsafe::__private::StatementPoint {
                method: "keys",
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
            message = "`Cache<String, u32>` cannot be checked by #[thread_safe]: it is not `Send + Sync`",
            label = "the checked type must be `Send + Sync`: its instance is shared between threads",
            note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics"
        )]
        trait SendAndSync {}
        impl SendAndSync for IsSendAndSync {}
        fn assert_send_and_sync<V: SendAndSync>(_: V) {}
        assert_send_and_sync(
            (&&::core::marker::PhantomData::<Cache<String, u32>>).verdict(),
        );
    };
    #[automatically_derived]
    impl ::my_threadsafe::Subject for Cache<String, u32> {
        #[allow(
            deprecated,
            unreachable_code,
            clippy::needless_borrow,
            clippy::let_and_return
        )]
        fn describe() -> ::my_threadsafe::__private::Description<Self> {
            #[allow(unused_imports)]
            use ::my_threadsafe::__private::{
                ViaSubject as _, ViaGenerate as _, ViaNothing as _, CloneYes as _,
                CloneNo as _, StashKeep as _, StashDrop as _,
            };
            #[allow(unused_imports)]
            use ::my_threadsafe::__private::{
                ObserveValue as _, ObserveDebug as _, ObserveNothing as _,
            };
            let __d = ::my_threadsafe::__private::Description::new("Cache<String, u32>");
            let __d = __d
                .op(
                    ::my_threadsafe::__private::Op::new(
                        "new",
                        ::my_threadsafe::__private::Receiver::None,
                        ::std::vec::Vec::from([]),
                        |__f| { __f.made(<Cache<String, u32>>::new()) },
                    ),
                );
            let __d = __d
                .op(
                    ::my_threadsafe::__private::Op::new(
                            "get",
                            ::my_threadsafe::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::my_threadsafe::__private::Param::value::<
                                    String,
                                >(
                                    "k",
                                    "&String",
                                    ::my_threadsafe::__private::Pass::Ref,
                                    (&&&::my_threadsafe::__private::Probe::<String>::new())
                                        .maker(),
                                    (&&::my_threadsafe::__private::Probe::<String>::new())
                                        .cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<String>(0)?;
                                let __r = <Cache<String, u32>>::get(__recv, &__a0);
                                (&&&::my_threadsafe::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::my_threadsafe::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Option<u32>"),
                );
            let __d = __d
                .op(
                    ::my_threadsafe::__private::Op::new(
                            "put",
                            ::my_threadsafe::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::my_threadsafe::__private::Param::value::<
                                    String,
                                >(
                                    "k",
                                    "String",
                                    ::my_threadsafe::__private::Pass::Owned,
                                    (&&&::my_threadsafe::__private::Probe::<String>::new())
                                        .maker(),
                                    (&&::my_threadsafe::__private::Probe::<String>::new())
                                        .cloner(),
                                ),
                                ::my_threadsafe::__private::Param::value::<
                                    u32,
                                >(
                                    "v",
                                    "u32",
                                    ::my_threadsafe::__private::Pass::Owned,
                                    (&&&::my_threadsafe::__private::Probe::<u32>::new())
                                        .maker(),
                                    (&&::my_threadsafe::__private::Probe::<u32>::new()).cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<String>(0)?;
                                let __a1 = __f.take::<u32>(1)?;
                                let __r = <Cache<String, u32>>::put(__recv, __a0, __a1);
                                (&&&::my_threadsafe::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::my_threadsafe::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Option<u32>"),
                );
            let __d = __d
                .op(
                    ::my_threadsafe::__private::Op::new(
                        "put_all",
                        ::my_threadsafe::__private::Receiver::Shared,
                        ::std::vec::Vec::from([
                            ::my_threadsafe::__private::Param::instance(
                                "other",
                                "&Cache<String, u32>",
                                ::my_threadsafe::__private::InstancePass::Ref,
                            ),
                        ]),
                        |__f| {
                            let __recv = __f.shared()?;
                            let __a0 = __f.instance(0)?;
                            <Cache<String, u32>>::put_all(__recv, __a0);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::my_threadsafe::__private::Op::new(
                            "keys",
                            ::my_threadsafe::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Cache<String, u32>>::keys(__recv);
                                (&&&::my_threadsafe::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::my_threadsafe::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Vec<String>"),
                );
            #[cfg(test)]
            let __d = __d
                .statements({
                    #[allow(clippy::zero_prefixed_literal)]
                    static __TS_STATEMENTS: &[::my_threadsafe::__private::StatementPoint] = &[
                        ::my_threadsafe::__private::StatementPoint {
                            method: "get",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::my_threadsafe::__private::StatementPoint {
                            method: "put",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::my_threadsafe::__private::StatementPoint {
                            method: "put_all",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::my_threadsafe::__private::StatementPoint {
                            method: "keys",
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
/// Checks the thread safety of `Cache<String, u32>` (generated by `#[thread_safe]`).
#[cfg(test)]
#[::core::prelude::v1::test]
fn thread_safe_cache_string_u32() {
    let mut __config = ::my_threadsafe::Config::default();
    __config.executor = ::my_threadsafe::Executor::Paper;
    ::my_threadsafe::__private::run_test::<Cache<String, u32>>(__config);
}
