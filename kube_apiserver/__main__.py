from kube_apiserver.cmd.app import main

main()
