from hookwright.cli.app import main

main()
