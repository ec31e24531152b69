from polyregions.cli import main

raise SystemExit(main())
