// Snapshot of `#[thread_safe(schedule = "controlled", strategy = "pct", depth = 2)]` on the impl block below: written by
// threadsafe-derive/src/snapshots.rs (`UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive`).

impl Stack {
    pub fn new() -> Self {
        Stack(Mutex::new(Vec::new()))
    }
    pub fn pop_or_zero(&self) -> u32 {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "pop_or_zero",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "0",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        if self.0.lock().unwrap().is_empty() {
            #[cfg(test)]
            ::threadsafe_rt::__private::statement({
                #[allow(clippy::zero_prefixed_literal)]
                static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                    method: "pop_or_zero",
                    file: ::core::file!(),
                    line: ::core::line!(),
                    fields: &[],
                };
                &__TS_POINT
            });
            return 0;
        }
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "pop_or_zero",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "0",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        self.0.lock().unwrap().pop().expect("checked non-empty")
    }
    pub fn drain(&self, limit: usize) -> Option<u32> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "0",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        let Some(first) = self.0.lock().unwrap().pop() else {
            #[cfg(test)]
            ::threadsafe_rt::__private::statement({
                #[allow(clippy::zero_prefixed_literal)]
                static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                    method: "drain",
                    file: ::core::file!(),
                    line: ::core::line!(),
                    fields: &[],
                };
                &__TS_POINT
            });
            return None;
        };
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        let total = 'outer: loop {
            #[cfg(test)]
            ::threadsafe_rt::__private::statement({
                #[allow(clippy::zero_prefixed_literal)]
                static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                    method: "drain",
                    file: ::core::file!(),
                    line: ::core::line!(),
                    fields: &[
                        ::threadsafe_rt::__private::FieldAccess {
                            field: "0",
                            write: true,
                        },
                    ],
                };
                &__TS_POINT
            });
            match self.0.lock().unwrap().pop() {
                Some(v) if v > 10 => {
                    #[cfg(test)]
                    ::threadsafe_rt::__private::statement({
                        #[allow(clippy::zero_prefixed_literal)]
                        static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        };
                        &__TS_POINT
                    });
                    break 'outer v;
                }
                Some(_) => {}
                None => break first,
            }
        };
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        let f = |x: u32| {
            let y = x + 1;
            y
        };
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        let _later = async { f(total) };
        fn helper() -> usize {
            1
        }
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        println!("{}", helper());
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "drain",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[],
            };
            &__TS_POINT
        });
        Some(unsafe {
            #[cfg(test)]
            ::threadsafe_rt::__private::statement({
                #[allow(clippy::zero_prefixed_literal)]
                static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                    method: "drain",
                    file: ::core::file!(),
                    line: ::core::line!(),
                    fields: &[],
                };
                &__TS_POINT
            });
            f(total)
        })
    }
    pub const fn capacity(&self) -> usize {
        let n = 4;
        n
    }
    pub fn dump(&self) -> String {
        let s = String::new();
        s
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
            message = "`Stack` cannot be checked by #[thread_safe]: it is not `Send + Sync`",
            label = "the checked type must be `Send + Sync`: its instance is shared between threads",
            note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics"
        )]
        trait SendAndSync {}
        impl SendAndSync for IsSendAndSync {}
        fn assert_send_and_sync<V: SendAndSync>(_: V) {}
        assert_send_and_sync((&&::core::marker::PhantomData::<Stack>).verdict());
    };
    #[automatically_derived]
    impl ::threadsafe_rt::Subject for Stack {
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
            let __d = ::threadsafe_rt::__private::Description::new("Stack");
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "new",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([]),
                        |__f| { __f.made(<Stack>::new()) },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "pop_or_zero",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Stack>::pop_or_zero(__recv);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("u32"),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "drain",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([
                                ::threadsafe_rt::__private::Param::value::<
                                    usize,
                                >(
                                    "limit",
                                    "usize",
                                    ::threadsafe_rt::__private::Pass::Owned,
                                    (&&&::threadsafe_rt::__private::Probe::<usize>::new())
                                        .maker(),
                                    (&&::threadsafe_rt::__private::Probe::<usize>::new())
                                        .cloner(),
                                ),
                            ]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __a0 = __f.take::<usize>(0)?;
                                let __r = <Stack>::drain(__recv, __a0);
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
                            "capacity",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Stack>::capacity(__recv);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("usize"),
                );
            let __d = __d.skip("dump", "excluded with #[thread_safe(skip)]");
            #[cfg(test)]
            let __d = __d
                .statements({
                    #[allow(clippy::zero_prefixed_literal)]
                    static __TS_STATEMENTS: &[::threadsafe_rt::__private::StatementPoint] = &[
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "pop_or_zero",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "0",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "pop_or_zero",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "pop_or_zero",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "0",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "0",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "0",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "drain",
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
/// Checks the thread safety of `Stack` (generated by `#[thread_safe]`).
#[cfg(test)]
#[::core::prelude::v1::test]
fn thread_safe_stack() {
    let mut __config = ::threadsafe_rt::Config::default();
    __config.schedule = ::threadsafe_rt::ScheduleMode::Controlled;
    __config.strategy = ::threadsafe_rt::Strategy::Pct {
        depth: 2,
    };
    ::threadsafe_rt::__private::run_test::<Stack>(__config);
}
