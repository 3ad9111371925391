"""API Priority and Fairness (k8s.io/apiserver/pkg/util/flowcontrol).

  rules.py            which FlowSchema a request matches, its flow distinguisher and flow hash
  shufflesharding.py  the Dealer that deals a flow its hand of queues
  queueset.py         fair queuing for server requests: one QueueSet per priority level
  conc_alloc.py       sharing the server's seats among levels (borrowing)
  controller.py       the config consumer: digests FlowSchemas and PriorityLevelConfigurations into
                      the state the filter uses, writes the FlowSchemas' Dangling condition
  apf_filter.py       the running state: the controller fed by watches, the status writer, installation
  work_estimator.py   the seats a request takes (LISTs by the objects stored)
  ensurer.py          the config producer: creates and reconciles the bootstrap objects
  dropped.py          the Retry-After of rejected requests, per priority level
  metrics.py          apiserver_flowcontrol_* metrics
  debug.py            /debug/api_priority_and_fairness/dump_* endpoints

The filter itself is kube_apiserver/server/filters/priority_and_fairness.py.
"""
