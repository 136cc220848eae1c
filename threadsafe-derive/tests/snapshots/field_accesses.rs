// Snapshot of `#[thread_safe()]` on the impl block below: written by
// threadsafe-derive/src/snapshots.rs (`UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive`).

impl Account {
    pub fn new() -> Self {
        todo!()
    }
    pub fn deposit(&self, amount: u64) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "deposit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "balance",
                        write: false,
                    },
                ],
            };
            &__TS_POINT
        });
        let old = self.balance.load(Ordering::SeqCst);
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "deposit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "balance",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        self.balance.store(old + amount, Ordering::SeqCst);
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "deposit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "log_enabled",
                        write: false,
                    },
                ],
            };
            &__TS_POINT
        });
        if self.log_enabled {
            #[cfg(test)]
            ::threadsafe_rt::__private::statement({
                #[allow(clippy::zero_prefixed_literal)]
                static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                    method: "deposit",
                    file: ::core::file!(),
                    line: ::core::line!(),
                    fields: &[
                        ::threadsafe_rt::__private::FieldAccess {
                            field: "log",
                            write: true,
                        },
                    ],
                };
                &__TS_POINT
            });
            self.log.lock().unwrap().push(amount);
        }
    }
    pub fn history(&self) -> Vec<u64> {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "history",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "log",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        self.log.lock().unwrap().clone()
    }
    pub fn reset(&mut self) {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "reset",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "balance",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        *self.balance.get_mut() = 0;
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "reset",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "type",
                        write: true,
                    },
                ],
            };
            &__TS_POINT
        });
        self.r#type = Kind::Empty;
    }
    #[cfg(feature = "audit")]
    pub fn audit(&self) -> bool {
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "audit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "balance",
                        write: false,
                    },
                ],
            };
            &__TS_POINT
        });
        println!("{}", self.balance.load(Ordering::SeqCst));
        #[cfg(test)]
        ::threadsafe_rt::__private::statement({
            #[allow(clippy::zero_prefixed_literal)]
            static __TS_POINT: ::threadsafe_rt::__private::StatementPoint = ::threadsafe_rt::__private::StatementPoint {
                method: "audit",
                file: ::core::file!(),
                line: ::core::line!(),
                fields: &[
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "log",
                        write: true,
                    },
                    ::threadsafe_rt::__private::FieldAccess {
                        field: "entries",
                        write: false,
                    },
                ],
            };
            &__TS_POINT
        });
        self.log
            .lock()
            .map(|l| l.len() == self.entries.read().unwrap().len())
            .unwrap_or(false)
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
            message = "`Account` cannot be checked by #[thread_safe]: it is not `Send + Sync`",
            label = "the checked type must be `Send + Sync`: its instance is shared between threads",
            note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics"
        )]
        trait SendAndSync {}
        impl SendAndSync for IsSendAndSync {}
        fn assert_send_and_sync<V: SendAndSync>(_: V) {}
        assert_send_and_sync((&&::core::marker::PhantomData::<Account>).verdict());
    };
    #[automatically_derived]
    impl ::threadsafe_rt::Subject for Account {
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
            let __d = ::threadsafe_rt::__private::Description::new("Account");
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "new",
                        ::threadsafe_rt::__private::Receiver::None,
                        ::std::vec::Vec::from([]),
                        |__f| { __f.made(<Account>::new()) },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "deposit",
                        ::threadsafe_rt::__private::Receiver::Shared,
                        ::std::vec::Vec::from([
                            ::threadsafe_rt::__private::Param::value::<
                                u64,
                            >(
                                "amount",
                                "u64",
                                ::threadsafe_rt::__private::Pass::Owned,
                                (&&&::threadsafe_rt::__private::Probe::<u64>::new())
                                    .maker(),
                                (&&::threadsafe_rt::__private::Probe::<u64>::new()).cloner(),
                            ),
                        ]),
                        |__f| {
                            let __recv = __f.shared()?;
                            let __a0 = __f.take::<u64>(0)?;
                            <Account>::deposit(__recv, __a0);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "history",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Account>::history(__recv);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("Vec<u64>"),
                );
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                        "reset",
                        ::threadsafe_rt::__private::Receiver::Exclusive,
                        ::std::vec::Vec::from([]),
                        |__f| {
                            let __recv = __f.exclusive()?;
                            <Account>::reset(__recv);
                            ::core::result::Result::Ok(())
                        },
                    ),
                );
            #[cfg(feature = "audit")]
            let __d = __d
                .op(
                    ::threadsafe_rt::__private::Op::new(
                            "audit",
                            ::threadsafe_rt::__private::Receiver::Shared,
                            ::std::vec::Vec::from([]),
                            |__f| {
                                let __recv = __f.shared()?;
                                let __r = <Account>::audit(__recv);
                                (&&&::threadsafe_rt::__private::Observe::new(&__r))
                                    .observe(__f);
                                (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                                ::core::result::Result::Ok(())
                            },
                        )
                        .returns("bool"),
                );
            #[cfg(test)]
            let __d = __d
                .statements({
                    #[allow(clippy::zero_prefixed_literal)]
                    static __TS_STATEMENTS: &[::threadsafe_rt::__private::StatementPoint] = &[
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "deposit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "balance",
                                    write: false,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "deposit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "balance",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "deposit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "log_enabled",
                                    write: false,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "deposit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "log",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "history",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "log",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "reset",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "balance",
                                    write: true,
                                },
                            ],
                        },
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "reset",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "type",
                                    write: true,
                                },
                            ],
                        },
                        #[cfg(feature = "audit")]
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "audit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "balance",
                                    write: false,
                                },
                            ],
                        },
                        #[cfg(feature = "audit")]
                        ::threadsafe_rt::__private::StatementPoint {
                            method: "audit",
                            file: ::core::file!(),
                            line: ::core::line!(),
                            fields: &[
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "log",
                                    write: true,
                                },
                                ::threadsafe_rt::__private::FieldAccess {
                                    field: "entries",
                                    write: false,
                                },
                            ],
                        },
                    ];
                    __TS_STATEMENTS
                });
            __d
        }
    }
};
/// Checks the thread safety of `Account` (generated by `#[thread_safe]`).
#[cfg(test)]
#[::core::prelude::v1::test]
fn thread_safe_account() {
    let __config = ::threadsafe_rt::Config::default();
    ::threadsafe_rt::__private::run_test::<Account>(__config);
}
